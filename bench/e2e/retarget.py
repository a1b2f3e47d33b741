#!/usr/bin/env python3
"""Retargeting accuracy: a step measured on one GPU, predicted on another.

For every per-node torch.fx CSV of a folder laid out like
../shared/data/e2e/neusight (label/<GPU>/<model>-<inf|train>-<seq>-<batch>.csv.gz,
one node time per row, measured on <GPU>), imports the step with its measured
node times (`perf-translate --import-fx-csv`), moves it to every GPU that has
a measured step label for the same model, phase, sequence and batch
(`perf-opt --perf-device=<target> --estimate`), and compares with that label's
`e2e_latency`. The H200 steps measured with PyTorch (data/measured/h200/label,
FP32 with eager attention as the NeuSight labels) are targets too, and the
steps of them traced there (execution + Kineto trace pairs, --traces) are
sources. Writes, per method, the matrix of mean |error| per ordered
(source, target) pair, the mean over the off-diagonal pairs and the worst
pair; the diagonal is the same GPU (the measured nodes replayed).

    bench/e2e/retarget.py [--data DIR] [--build DIR] [--kernels DIR]
                          [--out docs/accuracy.md] [--workload NAME]
                          [--method NAME ...] [--max-error PCT]

Methods: `ratio:auto` is measured x (target / source price) with the stack
perf-opt --estimate uses by default on the shipped model folder (trained on
the NeuSight kernel measurements of these same five GPUs); `ratio:auto-held-out`
is the same stack with a model folder trained here without the target GPU's
kernel measurements (--kernels, about 15 s per GPU); `shrunk:auto` and
`shrunk:auto-held-out` are the same two with `retarget=shrunk`: the target's
price times (measured / source price)^w, w per kernel kind from the folder's
retarget.json (bench/kernels/residual_transfer.py; for a held-out folder
fitted here without the target's rows, about 2 minutes per GPU); `ratio:roofline` is the
ratio of the plain roofline; `wave` is Habitat's wave scaling (no model).
Exits 2 when a step cannot be imported or estimated, 1 when --max-error is
exceeded by the first method, 77 with --skip-without-data when the data is
absent.
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from doc_section import write_section  # noqa: E402
from tool_run import run  # noqa: E402
SHIPPED_MODELS = os.path.join(ROOT, "data", "models", "neusight")
LABEL = re.compile(r"^(?P<workload>.+-(?:inf|train)-\d+-\d+)\.json$")
METHODS = ["ratio:auto", "ratio:auto-held-out", "shrunk:auto", "shrunk:auto-held-out", "wave",
           "ratio:roofline"]
BEGIN = "<!-- BEGIN RETARGET (bench/e2e/retarget.py) -->"
END = "<!-- END RETARGET -->"


def gpu_name(folder):
    """The catalog name of a label folder (Tesla_T4 -> tesla t4)."""
    return folder.replace("_", " ").lower()


def steps(data, only, extra=()):
    """{workload: {gpu folder: (label ms, csv path or None)}}, from the
    labels of `data` and the label folders `extra` (more target GPUs)."""
    out = {}
    folders = [(os.path.join(data, "label"), gpu)
               for gpu in sorted(os.listdir(os.path.join(data, "label")))]
    for label_dir in extra:
        folders += [(label_dir, gpu) for gpu in sorted(os.listdir(label_dir))]
    for label_dir, gpu in folders:
        for name in sorted(os.listdir(os.path.join(label_dir, gpu))):
            m = LABEL.match(name)
            if not m or (only and m["workload"] not in only):
                continue
            with open(os.path.join(label_dir, gpu, name)) as f:
                ms = json.load(f)["e2e_latency"]
            csv = os.path.join(label_dir, gpu, m["workload"] + ".csv.gz")
            out.setdefault(m["workload"], {})[gpu] = (ms, csv if os.path.exists(csv) else None)
    return out


def traced_sources(trace_dir, gpu):
    """{workload: (et, kineto)} of the FP32 eager-attention trace pairs in
    `trace_dir` (data/measured/h200/traces: <workload>-fp32-eager.et.json.gz
    and .kineto.json.gz), sources measured on the GPU of folder `gpu`."""
    out = {}
    if not trace_dir or not os.path.isdir(trace_dir):
        return out
    for name in sorted(os.listdir(trace_dir)):
        m = re.match(r"^(?P<workload>.+-(?:inf|train)-\d+-\d+)-fp32-eager\.et\.json\.gz$", name)
        kineto = os.path.join(trace_dir, name.replace(".et.json.gz", ".kineto.json.gz"))
        if m and os.path.exists(kineto):
            out[m["workload"]] = (os.path.join(trace_dir, name), kineto)
    return out


def estimate_ms(build, step, target, method, ml_dir):
    cmd = [os.path.join(build, "bin", "perf-opt"), step, "--perf-device=" + gpu_name(target)]
    options = ["format=json"]
    # Every method names its retarget: the default (shrunk) would stand in
    # for the ratio methods silently.
    if method == "wave":
        options.append("retarget=wave")
    elif method == "ratio:roofline":
        options += ["models=roofline", "retarget=ratio"]
    else:
        options += ["models=auto", "ml-dir=" + ml_dir]
        options.append("retarget=" + method.split(":")[0])
    cmd.append("--estimate=" + " ".join(options))
    return json.loads(run(cmd))["graphs"][0]["e2e_us"] / 1000.0


def held_out_folder(build, kernels, gpu, work, weights):
    """A model folder trained like data/models/neusight without `gpu`, with
    retarget=shrunk's weights fitted without it when `weights`."""
    out = os.path.join(work, "without-" + gpu)
    # The chip (Tesla_T4 -> T4, NVIDIA_A100-PCIE-40GB -> A100): perf-train
    # drops every device whose name contains it, so the A100-80GB rows of
    # the conv measurements go with the A100-40GB ones.
    name = re.sub(r"^(Tesla|NVIDIA)_", "", gpu).split("-")[0]
    if not os.path.isdir(out):
        print("training without " + name, file=sys.stderr)
        run([os.path.join(build, "bin", "perf-train"), "--neusight", kernels,
             "--exclude-device=" + name, "--rounds=120", "-o", out])
    if weights and not os.path.exists(os.path.join(out, "retarget.json")):
        # retarget=shrunk's weights, fitted as for the shipped folder
        # without the target's rows.
        run([sys.executable, os.path.join(ROOT, "bench", "kernels", "residual_transfer.py"),
             "--neusight", kernels, "--build", build, "--exclude-device=" + name,
             "--rounds=120", "--out", os.path.join(out, "retarget.json")])
    return out


def relative_to_replay(detail, index):
    """Per (source, target) pair of different GPUs, the errors of method
    `index` with the source's own replay error of the same step taken out:
    (1 + e) / (1 + replay) - 1, what the move to the target added."""
    replay = {(r[0], r[1]): r[4 + index] for r in detail if r[1] == r[2]}
    out = {}
    for r in detail:
        if r[1] != r[2] and (r[0], r[1]) in replay:
            out.setdefault((r[1], r[2]), []).append(
                100 * ((1 + r[4 + index] / 100) / (1 + replay[(r[0], r[1])] / 100) - 1))
    return out


def matrix_lines(gpus, errors):
    """Markdown of the mean |error| per (source, target) and its summary."""
    lines = ["| source \\ target | " + " | ".join(gpus) + " |",
             "|---" * (len(gpus) + 1) + "|"]
    pairs = {}
    for s in gpus:
        cells = []
        for t in gpus:
            e = errors.get((s, t))
            if not e:
                cells.append("-")
                continue
            mean = sum(abs(x) for x in e) / len(e)
            cells.append("%.1f (%d)" % (mean, len(e)))
            if s != t:
                pairs[(s, t)] = mean
        lines.append("| " + s + " | " + " | ".join(cells) + " |")
    mean = sum(pairs.values()) / len(pairs) if pairs else float("nan")
    worst = max(pairs, key=pairs.get) if pairs else None
    lines.append("")
    lines.append("Mean over the %d ordered pairs of different GPUs: **%.1f%%**; worst pair: %s -> %s, "
                 "%.1f%%." % (len(pairs), mean, worst[0], worst[1], pairs[worst]) if worst else
                 "No pair of different GPUs.")
    return lines, mean, (worst, pairs.get(worst))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "e2e", "neusight"))
    ap.add_argument("--kernels",
                    default=os.path.join(ROOT, "..", "shared", "data", "kernels", "neusight"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--ml-dir", default=SHIPPED_MODELS)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "accuracy.md"),
                    help="Markdown file whose retarget section is replaced ('-': print)")
    ap.add_argument("--extra-labels", action="append",
                    help="a folder of <GPU>/<step>.json labels, more targets (default: the H200 "
                    "steps of data/measured/h200/label; '' for none)")
    ap.add_argument("--traces",
                    default=os.path.join(ROOT, "data", "measured", "h200", "traces"),
                    help="execution + Kineto trace pairs of FP32 eager steps measured on the "
                    "GPU of --traces-gpu, more sources ('' for none)")
    ap.add_argument("--traces-gpu", default="NVIDIA_H200",
                    help="the label folder name of the GPU the --traces ran on")
    ap.add_argument("--workload", action="append",
                    help="only these steps (e.g. bert_large-inf-512-8)")
    ap.add_argument("--method", action="append", choices=METHODS)
    ap.add_argument("--max-error", type=float, default=0,
                    help="exit 1 if the first method's mean |error| over pairs exceeds this (%%)")
    ap.add_argument("--skip-without-data", action="store_true")
    ap.add_argument("--rows", help="JSON file of the per-step results: written after a run; "
                    "with --render, read instead of running")
    ap.add_argument("--render", action="store_true",
                    help="only write the Markdown from --rows (no imports, no estimates)")
    args = ap.parse_args()
    methods = args.method or METHODS
    if args.render and not args.rows:
        print("error: --render needs --rows", file=sys.stderr)
        return 2
    if args.render:
        pass
    elif not os.path.isdir(args.data) or (any(m.endswith("held-out") for m in methods) and
                                        not os.path.isdir(args.kernels)):
        if args.skip_without_data:
            print("skipped: no data at %s" % args.data, file=sys.stderr)
            return 77
        print("error: no data at %s or %s" % (args.data, args.kernels), file=sys.stderr)
        return 2

    start = time.time()
    extra = args.extra_labels
    if extra is None:
        extra = [os.path.join(ROOT, "data", "measured", "h200", "label")]
    todo = {} if args.render else steps(args.data, args.workload, [e for e in extra if e])
    traces = traced_sources(args.traces, args.traces_gpu)
    detail = []
    if args.render:
        with open(args.rows) as f:
            saved = json.load(f)
        methods, detail = saved["methods"], saved["rows"]
        start -= saved.get("elapsed_s", 0)
    with tempfile.TemporaryDirectory() as work:
        for workload, per in sorted(todo.items()):
            for source, (_, csv) in sorted(per.items()):
                trace = traces.get(workload) if source == args.traces_gpu else None
                if not (csv or trace) or len(per) < 2 and "-train-" in workload:
                    continue
                step = os.path.join(work, "step.mlir")
                try:
                    if trace:
                        run([os.path.join(args.build, "bin", "perf-translate"),
                             "--import-pytorch-et", trace[0], "--kineto=" + trace[1], "-o", step])
                    else:
                        run([os.path.join(args.build, "bin", "perf-translate"), "--import-fx-csv",
                             csv, "-o", step])
                    for target, (label_ms, _) in sorted(per.items()):
                        row = [workload, source, target, label_ms]
                        for m in methods:
                            ml_dir = (held_out_folder(args.build, args.kernels, target, work,
                                                      m == "shrunk:auto-held-out")
                                      if m.endswith(":auto-held-out") else args.ml_dir)
                            ms = estimate_ms(args.build, step, target, m, ml_dir)
                            row.append(100.0 * (ms - label_ms) / label_ms)
                        detail.append(row)
                        print(" ".join(str(x) if not isinstance(x, float) else "%.1f" % x
                                       for x in row), file=sys.stderr)
                except RuntimeError as e:
                    print("error: " + str(e), file=sys.stderr)
                    return 2
    elapsed = time.time() - start
    if args.rows and not args.render:
        with open(args.rows, "w") as f:
            json.dump({"methods": methods, "rows": detail, "elapsed_s": elapsed}, f)
    gpus = sorted({r[1] for r in detail} | {r[2] for r in detail})
    errors = {m: {} for m in methods}
    for r in detail:
        for i, m in enumerate(methods):
            errors[m].setdefault((r[1], r[2]), []).append(r[4 + i])

    lines = [BEGIN,
             "Generated by `bench/e2e/retarget.py` in %.0f s (%d cores). Cells: mean |error| %% of the "
             "predicted step against the target's measured label, over the steps both GPUs measured "
             "(their count in parentheses); rows are the GPU whose node times were imported." %
             (elapsed, os.cpu_count()), ""]
    means, summary = {}, []
    for m in methods:
        lines.append("### " + m)
        lines.append("")
        body, means[m], worst = matrix_lines(gpus, errors[m])
        lines += body
        lines.append("")
        lines.append("The same pairs with the source's own replay error taken out "
                     "((1 + error) / (1 + replay error) - 1: what moving the step added):")
        lines.append("")
        body, moved, moved_worst = matrix_lines(gpus, relative_to_replay(detail, methods.index(m)))
        lines += body
        lines.append("")
        summary.append("| %s | %.1f | %s -> %s %.1f | %.1f | %s -> %s %.1f |" % (
            m, means[m], worst[0][0], worst[0][1], worst[1], moved, moved_worst[0][0],
            moved_worst[0][1], moved_worst[1]))
    lines[3:3] = ["| method | mean \\|error\\| % | worst pair % | without the source's replay error % "
                  "| worst pair % |", "|---|---|---|---|---|"] + summary + [""]
    lines.append("Per step (error %, predicted against the target's label):")
    lines.append("")
    lines.append("| step | source | target | measured ms | " + " | ".join(methods) + " |")
    lines.append("|---" * (4 + len(methods)) + "|")
    for row in detail:
        lines.append("| %s | %s | %s | %.1f | " % tuple(row[:4]) +
                     " | ".join("%+.1f" % e for e in row[4:]) + " |")
    lines.append(END)
    text = "\n".join(lines) + "\n"
    write_section(args.out, BEGIN, END, text, elapsed)
    for m in methods:
        print("%s: mean |error| over pairs %.1f%%" % (m, means[m]), file=sys.stderr)
    if args.max_error and means[methods[0]] > args.max_error:
        print("error: %s mean |error| %.1f%% above %.1f%%" % (methods[0], means[methods[0]],
                                                              args.max_error), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
