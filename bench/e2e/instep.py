#!/usr/bin/env python3
"""Learning from kernels timed inside steps: held out by model.

For each model of a label folder (../shared/data/e2e/neusight layout), trains
the default stack's folder on the NeuSight kernel measurements plus the
single-kernel nodes of every *other* model's per-node fx CSVs (`perf-train
--fx`, each row weighted W), then prices that model's labels from its config
and from its fx graph. No label or node time of the model priced is seen in
training. Prints a Markdown table per weight and the summary against the
shipped folder (kernel measurements only).

    bench/e2e/instep.py [--weight 20 --weight 200] [--data DIR] [--build DIR]
                        [--kernels DIR] [--vidur DIR] [--work DIR]

About 40 s of training per model and weight on two cores.
"""

import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_e2e as e2e  # noqa: E402


def train(build, kernels, vidur, csvs, weight, out):
    fx = [a for c in csvs for a in ("--fx", c)] + ["--fx-weight", str(weight)]
    tool = os.path.join(build, "bin", "perf-train")
    # The shipped folder's recipe (bench/models/train_default.sh) with the
    # fx rows added to both trainings.
    e2e.run([tool, "--neusight", kernels, "--rounds=120", "-o", out] + fx)
    e2e.run([tool, "--neusight", kernels, "--vidur", vidur, "--roofline-only", "-o", out] + fx)
    shutil.copy(os.path.join(e2e.SHIPPED_MODELS, "selection.json"), out)


def price(build, data, labels, model_dir, work):
    """[(label, config error %, fx error % or None)] of `labels`."""
    out = []
    for l in labels:
        gpu = e2e.gpu_name(l["gpu"])
        config = os.path.join(data, "configs", l["model"] + ".json")
        cfg = e2e.estimate(build, config, l, gpu, e2e.DEFAULT_STACK, model_dir, work)
        fx = None
        if l["csv"]:
            fx = e2e.estimate_fx(build, l["csv"], gpu, e2e.DEFAULT_STACK, model_dir, work,
                                 False)[0]
        m = l["measured_ms"]
        out.append((l, 100 * (cfg - m) / m, None if fx is None else 100 * (fx - m) / m))
    return out


def summary(rows):
    c = [abs(r[1]) for r in rows]
    f = [abs(r[2]) for r in rows if r[2] is not None]
    return "%.2f | %.1f | %.2f | %.1f" % (sum(c) / len(c), max(c), sum(f) / len(f), max(f))


def main():
    root = e2e.ROOT
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(root, "..", "shared", "data", "e2e", "neusight"))
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--kernels", default=os.path.join(root, "..", "shared", "data", "kernels", "neusight"))
    ap.add_argument("--vidur", default=os.path.join(root, "..", "shared", "data", "kernels", "vidur"))
    ap.add_argument("--weight", type=float, action="append", help="fx row weight (repeatable; default 20)")
    ap.add_argument("--work", help="keep the trained folders here (default: a temporary folder)")
    args = ap.parse_args()
    for d in (args.data, args.kernels, args.vidur):
        if not os.path.isdir(d):
            sys.exit("error: no folder %s" % d)
    weights = args.weight or [20.0]
    labels = e2e.labels(args.data)
    models = sorted({l["model"] for l in labels})
    work = args.work or tempfile.mkdtemp()
    os.makedirs(work, exist_ok=True)
    results = {"shipped": price(args.build, args.data, labels, e2e.SHIPPED_MODELS, work)}
    for w in weights:
        rows = []
        for m in models:
            out = os.path.join(work, "w%g-%s" % (w, m))
            csvs = [l["csv"] for l in labels if l["model"] != m and l["csv"]]
            print("training without %s (%d fx CSVs, weight %g)" % (m, len(csvs), w),
                  file=sys.stderr, flush=True)
            train(args.build, args.kernels, args.vidur, csvs, w, out)
            rows += price(args.build, args.data, [l for l in labels if l["model"] == m], out, work)
        results["fx weight %g" % w] = rows
    print("| folder | config mean % | config worst % | fx mean % | fx worst % |")
    print("|---|---|---|---|---|")
    for name, rows in results.items():
        print("| %s | %s |" % (name, summary(rows)))
    if not args.work:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
