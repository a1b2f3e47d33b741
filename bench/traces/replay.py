#!/usr/bin/env python3
"""Replay accuracy on the shared Kineto traces.

For every Kineto trace under ../shared/data/traces that has device events,
runs `perf-trace replay` (defaults: the iterations of its ProfilerStep spans,
else the whole trace) and reports per trace the mean |error| per iteration
with each op's own measured T1-T5 (checks the dependency model) and with the
overhead table extracted from the same trace (in sample, and held out with
`--holdout` where there are at least two iterations). With --mlir, also
imports each iteration (`perf-translate --import-kineto --iteration=i`),
estimates it with the same table (`perf-opt --perf-kernel-cost
--perf-host-overhead --perf-critical-path`) and compares the two paths'
predictions of the same iteration (replay with `--no-carry`, which the MLIR
path cannot carry either).

    bench/traces/replay.py [--data DIR] [--build DIR] [--out docs/validation.md]
                           [--trace SUBSTRING ...] [--mlir]

Writes a Markdown table between the markers in --out ('-': print).
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from doc_section import write_section  # noqa: E402
BEGIN = "<!-- BEGIN REPLAY (bench/traces/replay.py) -->"
END = "<!-- END REPLAY -->"


def run(cmd, check=True):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + p.stderr.strip()[-2000:])
    return p


def traces(data, work):
    """(label, path) of every Kineto trace with GPU events, the DLRM ranks
    unpacked from their archive."""
    out = []
    for path in sorted(glob.glob(os.path.join(data, "kineto", "*.json*")) +
                       glob.glob(os.path.join(data, "hta", "*.json.gz")) +
                       glob.glob(os.path.join(data, "param", "*_kineto.json.gz"))):
        if "_et." not in os.path.basename(path):  # execution traces
            out.append((os.path.relpath(path, data), path))
    archive = os.path.join(data, "param", "dlrm_kineto.tar.gz")
    if os.path.exists(archive):
        with tarfile.open(archive) as tar:
            members = sorted((m for m in tar.getmembers() if m.name.endswith(".json")),
                             key=lambda m: m.name)
            for m in members:
                tar.extract(m, work)
                out.append(("param/" + m.name, os.path.join(work, m.name)))
    return out


def replay(build, path, *extra):
    p = run([os.path.join(build, "bin", "perf-trace"), "replay", path, "--format=json"] +
            list(extra), check=False)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed"
    return json.loads(p.stdout), None


def mean_abs(values):
    return sum(abs(v) for v in values) / len(values) if values else float("nan")


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def spread(iterations, scored):
    """How far the scored iterations' measured times are from the median of
    the iterations running the same number of ops (mean |m / median - 1|, in
    %): what any prediction made from an iteration's ops alone misses when
    identical iterations take different times (a host that stalls, a data
    loader that waits). None where no scored iteration has a twin."""
    by_ops = {}
    for it in iterations:
        by_ops.setdefault(it["ops"], []).append(it["measured_us"])
    out = [100 * (it["measured_us"] / median(by_ops[it["ops"]]) - 1)
           for it in scored if len(by_ops[it["ops"]]) >= 2]
    return mean_abs(out) if out else None


def replay_table(build, path, out):
    """The overhead table of `path` extracted as replay extracts its own
    (no profiler cost subtracted, every sample kept), written to `out`."""
    run([os.path.join(build, "bin", "perf-trace"), "overheads", path,
         "--profiler-overhead-cpu=0", "--profiler-overhead-gpu=0", "--remove-outliers=none",
         "-o", out])
    return out


def host_siblings(labels):
    """{label: the label of another trace of the same host}: the param DLRM
    ranks, one step each on one machine, each paired with the next."""
    ranks = [l for l in labels if l.startswith("param/dlrm_kineto/worker")]
    return {l: ranks[(i + 1) % len(ranks)] for i, l in enumerate(ranks)} if len(ranks) > 1 \
        else {}


def mlir_agreement(build, path, iterations, work):
    """|MLIR estimate / replay estimate - 1| per iteration, same table."""
    table = os.path.join(work, "table.json")
    run([os.path.join(build, "bin", "perf-trace"), "overheads", path,
         "--profiler-overhead-cpu=0", "--profiler-overhead-gpu=0", "--remove-outliers=none",
         "-o", table])
    no_carry, _ = replay(build, path, "--no-carry")
    diffs = []
    for i, it in enumerate(iterations):
        if it["ops"] == 0:
            continue
        step = os.path.join(work, "step.mlir")
        p = run([os.path.join(build, "bin", "perf-translate"), "--import-kineto", path,
                 "--iteration=%d" % (i if len(iterations) > 1 or it["name"].startswith("Profiler")
                                     else -1), "-o", step], check=False)
        if p.returncode != 0:
            continue
        p = run([os.path.join(build, "bin", "perf-opt"), step, "--perf-kernel-cost",
                 "--perf-host-overhead=table=" + table, "--perf-critical-path",
                 "--perf-compare=format=json", "-o", os.devnull], check=False)
        if p.returncode != 0:
            continue
        predicted = json.loads(p.stdout)["graphs"][0]["predicted_us"]
        reference = no_carry["iterations"][i]["predicted_us"]
        if reference > 0:
            diffs.append(100.0 * (predicted / reference - 1))
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "traces"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "validation.md"))
    ap.add_argument("--trace", action="append", help="only traces whose path contains this")
    ap.add_argument("--mlir", action="store_true", help="also compare with the MLIR path")
    args = ap.parse_args()
    if not os.path.isdir(args.data):
        print("error: no traces at " + args.data, file=sys.stderr)
        return 2
    start = time.time()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        found = traces(args.data, work)
        paths = dict(found)
        siblings = host_siblings([label for label, _ in found])
        for label, path in found:
            if args.trace and not any(t in label for t in args.trace):
                continue
            print(label, file=sys.stderr)
            result, error = replay(args.build, path)
            if result is None:
                rows.append((label, "-", error))
                continue
            its = result["iterations"]
            if not its or all(it["device_events"] == 0 for it in its):
                rows.append((label, "-", "no device events"))
                continue
            own = [100 * it["error_measured_overheads"] for it in its]
            table = [100 * it["error"] for it in its]
            held = "-"
            twins = "-"
            if len(its) >= 2:
                h, _ = replay(args.build, path, "--holdout")
                if h:
                    held = "%.1f%%" % mean_abs([100 * it["error"] for it in h["iterations"]])
                    floor = spread(its, h["iterations"])
                    if floor is not None:
                        twins = "%.1f%%" % floor
            other = "-"
            if label in siblings:
                sibling = replay_table(args.build, paths[siblings[label]],
                                       os.path.join(work, "sibling.json"))
                o, _ = replay(args.build, path, "--overheads=" + sibling)
                if o:
                    other = "%.1f%% (%s)" % (mean_abs([100 * it["error"] for it in o["iterations"]]),
                                             os.path.basename(siblings[label]).split("_")[0])
            agree = "-"
            if args.mlir:
                diffs = mlir_agreement(args.build, path, its, work)
                if diffs:
                    agree = "%.1f%% (worst %.1f%%)" % (mean_abs(diffs), max(abs(d) for d in diffs))
            rows.append((label, "%d (%s)" % (len(its), result["iterations_from"]),
                         "%.2f%%" % mean_abs(own), "%.1f%%" % mean_abs(table), held, other,
                         twins,
                         "%+.1f%%" % (100 * result["total_error"]), agree))
    elapsed = time.time() - start
    lines = [BEGIN,
             "Generated by `bench/traces/replay.py%s` in %.0f s. Per trace: mean |error| per "
             "iteration of `perf-trace replay` with each op's own measured T1-T5, with the table "
             "extracted from the same iterations (in sample) and from the even iterations only, "
             "scored on the odd ones (`--holdout`), and from another trace of the same host (the "
             "next DLRM rank's, extracted as replay extracts its own: no profiler cost subtracted, "
             "every sample kept); how far those odd iterations' measured times are "
             "from the median of the iterations running as many ops (*spread*: what any "
             "prediction from an iteration's ops alone misses); the total error with the "
             "in-sample table%s." %
             (" --mlir" if args.mlir else "", elapsed,
              "; and how far the MLIR path's estimate of each iteration is from the replay's "
              "(same table, `--no-carry`)" if args.mlir else ""),
             "",
             "| trace | iterations | own T1-T5 | table, in sample | table, held out | "
             "table, another trace of the host | spread | total | MLIR vs replay |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        if len(row) == 3:
            lines.append("| %s | %s | %s | | | | | | |" % row)
        else:
            lines.append("| " + " | ".join(row) + " |")
    lines.append(END)
    text = "\n".join(lines) + "\n"
    write_section(args.out, BEGIN, END, text, elapsed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
