#!/usr/bin/env python3
"""Step-time accuracy against steps replayed by perf-bench --run-graph.

hopper.sh's run-graph phase replays steps from their launch lists
(runtime/bench/campaign/e2e-launches.tar.gz) and writes run-graph.json: for
each list NAME, the perf.graph_run/1 document perf-bench wrote. This harness
builds the same step again, estimates it with `perf-opt --estimate` on the
GPU it ran on, with host overheads that describe the replay (below), and
writes a Markdown report: per step the measured and predicted times and the
error, then the mean, the worst and how many steps are within 8%.

    bench/e2e/run_graph_eval.py --runs run-graph.json [--runs more.json]
        [--device h200] [--overheads data/measured/h200/host-overheads.json]
        [--host replay|launch-call] [--build DIR] [--configs DIR]
        [--onnx-dir DIR] [--stack STACK] [--db FILE[.gz] ...] [--out FILE]
        [--max-error PCT]

A step is named as its launch list:
  LABEL-DTYPE                        a transformer of --configs at the label's
                                     phase, sequence and batch, eager attention
                                     (e2e_kernels.py's lists);
  example_NAME                       examples/NAME.mlir;
  onnx_MODEL-inf|train-BATCH-fp32    light_MODEL.onnx of --onnx-dir at that
                                     batch (train: the backward synthesized).

Host overheads. The replay runs no framework, so nothing separates two
launches but the launch itself: T1, T2, T3 and T5 are 0. With --host=replay
(the default) each launch costs the host what perf-bench measured for
launches of its kernel kind (host.launch_us's medians in perf.graph_run/1:
about 6 us for perf-bench's own kernels, 12 for a cuBLAS GEMM, 100 for a
cuDNN convolution), taken from the other graphs of the runs, never the one
scored. --host=launch-call prices every launch at the probe's
cudaLaunchKernel and cudaMemcpyAsync (--overheads) instead, for runs written
before perf-bench 0.4 kept host times.

Only steps the replay ran whole are scored: a step with launches not run
(collectives, kernels perf-bench has no benchmark for) is listed with the
count and left out of the mean. Exits 2 when a step cannot be built or
estimated, 1 when the mean error exceeds --max-error.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
BEGIN = "<!-- BEGIN RUN GRAPH (bench/e2e/run_graph_eval.py) -->"
END = "<!-- END RUN GRAPH -->"
sys.path.insert(0, os.path.join(HERE, "..", "..", "runtime", "bench", "campaign"))
import run_e2e  # noqa: E402
sys.path.insert(0, os.path.join(HERE, ".."))
from doc_section import write_section  # noqa: E402
import perf_db  # noqa: E402
import run_measured  # noqa: E402
import measure_steps  # noqa: E402

ROOT = run_e2e.ROOT
WITHIN = 0.08  # issue 19's step goal: within 8% of the replay


def split_name(name):
    """LABEL-DTYPE (e2e_kernels.py's member names) -> (label, dtype)."""
    label, _, dtype = name.rpartition("-")
    return label, dtype


def step_source(name, configs, onnx_dir, build, work):
    """(input file, perf-opt flags) of the step a launch list is named after."""
    if name.startswith("example_"):
        return os.path.join(ROOT, "examples", name[len("example_"):] + ".mlir"), []
    if name.startswith("onnx_"):
        model, phase, batch, _ = name[len("onnx_"):].rsplit("-", 3)
        flags = ["--onnx-batch=" + batch]
        if phase == "train":
            flags.append("--perf-synthesize-training")
        return os.path.join(onnx_dir, "light_%s.onnx" % model), flags
    label, dtype = split_name(name)
    model, phase, seq, batch = measure_steps.parse_label(label)
    step = os.path.join(work, "step.mlir")
    run_measured.build_step(build, configs, {"model": model, "phase": phase, "seq": seq,
                                             "batch": batch, "dtype": dtype, "attn": "eager"},
                            step)
    return step, []


def launch_host_us(runs):
    """{graph name: {kernel kind: median host us of one launch}} of the runs
    that kept host times."""
    out = {}
    for name, doc in runs.items():
        for graph in doc.get("graphs", []):
            kinds = graph.get("host", {}).get("launch_us", {})
            if kinds:
                out[name] = {k: v["median"] for k, v in kinds.items()}
    return out


def left_out_kind_us(host, name):
    """Per kernel kind, the median over the graphs other than `name` of their
    per-launch host time."""
    by_kind = {}
    for other, kinds in host.items():
        if other == name:
            continue
        for kind, us in kinds.items():
            by_kind.setdefault(kind, []).append(us)
    return {k: statistics.median(v) for k, v in by_kind.items()}


def replay_table(probe, launches, kind_us):
    """The host overhead table (docs/host-overheads.md) of a replay: no
    framework gaps, T4 from the probe, and per op the difference between its
    launches' measured host time (`kind_us` by kernel kind) and T4 as its T2
    and T5, so that an op of n launches costs the host n measured launches.
    `launches` is the step's launch list (perf.launch_list/1); an empty
    `kind_us` gives the probe's launch call alone."""
    runtime = dict(probe.get("runtime", {}))
    launch_t4 = float(runtime.get("cudaLaunchKernel", 0.0))
    copy_t4 = float(kind_us.get("memcpy", runtime.get("cudaMemcpyAsync", 0.0)))
    runtime["cudaMemcpyAsync"] = copy_t4
    per_op = {}
    for graph in launches.get("graphs", []):
        for launch in graph.get("launches", []):
            if launch.get("type") != "kernel" or launch.get("kind") not in kind_us:
                continue
            t4 = copy_t4 if launch["kind"] == "memcpy" else launch_t4
            per_op.setdefault(launch["name"], []).append(kind_us[launch["kind"]] - t4)
    ops = {}
    for op, extra in per_op.items():
        us = max(0.0, sum(extra) / len(extra))
        if us > 0:
            ops[op] = {"t2": us, "t5": us}
    table = {"version": 1,
             "source": "perf-bench --run-graph's replay: no framework between launches",
             "default": {"t1": 0.0, "t2": 0.0, "t3": 0.0, "t5": 0.0},
             "runtime": runtime}
    if ops:
        table["ops"] = ops
    return table


def score(runs, predict):
    """Rows (name, measured, predicted, error or None, not run) for every
    graph run; `predict(name)` gives the estimate in us."""
    rows = []
    for name in sorted(runs):
        for graph in runs[name].get("graphs", []):
            if "measured_us" not in graph:
                rows.append((name, None, None, None, graph.get("error_text", "did not run")))
                continue
            not_run = sum(graph.get("not_run", {}).values())
            measured = graph["measured_us"]
            # A replay that left launches out is not the step perf prices.
            predicted = predict(name) if not_run == 0 else None
            error = predicted / measured - 1 if not_run == 0 else None
            rows.append((name, measured, predicted, error, not_run))
    return rows


def summary(rows):
    """(mean |error| %, worst %, steps scored, steps within WITHIN)."""
    scored = [abs(r[3]) for r in rows if r[1] is not None and r[3] is not None]
    if not scored:
        return float("nan"), float("nan"), 0, 0
    return (100 * sum(scored) / len(scored), 100 * max(scored), len(scored),
            sum(1 for e in scored if e <= WITHIN))


def report(by_stack, device, host="replay"):
    """Markdown: a row per step with the measured time and, per stack of
    `by_stack` ({stack: score() rows}, the same steps in the same order),
    the prediction and its error; then each stack's mean, worst and count
    within 8%. Returns (text, the first stack's mean)."""
    stacks = list(by_stack)
    lines = ["Steps replayed by `perf-bench --run-graph` on %s, estimated by `perf-opt "
             "--estimate` with the replay's host overheads (%s)." % (device, host), "",
             "| step | measured us | " + " | ".join("%s us | error" % st for st in stacks) +
             " | launches not run |",
             "|---|---:|" + "---:|---:|" * len(stacks) + "---|"]
    for i, (name, measured, _, _, not_run) in enumerate(by_stack[stacks[0]]):
        if measured is None:
            lines.append("| %s | - | " % name + "- | - | " * len(stacks) + "%s |" % not_run)
            continue
        cells = []
        for st in stacks:
            _, _, predicted, error, _ = by_stack[st][i]
            cells.append("%.1f | %+.1f%%" % (predicted, 100 * error) if error is not None
                         else "- | not scored")
        lines.append("| %s | %.1f | %s | %s |" % (name, measured, " | ".join(cells), not_run))
    lines.append("")
    for st in stacks:
        mean, worst, n, within = summary(by_stack[st])
        lines.append("%s: mean |error| %.1f%%, worst %.1f%%, over %d steps run whole; %d "
                     "within %d%%." % (st, mean, worst, n, within, round(100 * WITHIN)))
    lines.append("")
    lines.append("Steps \"not scored\" left launches out of the replay (their count in the "
                 "last column), so they are not the step perf prices.")
    return "\n".join(lines) + "\n", summary(by_stack[stacks[0]])[0]


def merge_databases(paths, merged):
    """One database of every row of `paths` (gzip-compressed where a name ends
    in .gz), the later file's row where two hold the same key."""
    perf_db.unpack(paths[0], merged)
    for i, path in enumerate(paths[1:]):
        part = os.path.join(os.path.dirname(merged), "part%d.db" % i)
        perf_db.merge_rows(merged, perf_db.unpack(path, part))
    return merged


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", required=True, action="append",
                    help="perf.graph_run/1 documents by list name (hopper.sh's run-graph.json)")
    ap.add_argument("--device", default="h200")
    ap.add_argument("--overheads",
                    default=os.path.join(ROOT, "data", "measured", "h200", "host-overheads.json"),
                    help="the probe's T4 table")
    ap.add_argument("--host", choices=["replay", "launch-call"], default="replay")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--configs", default=os.path.join(ROOT, "data", "e2e", "configs"))
    ap.add_argument("--onnx-dir", default=os.path.join(ROOT, "..", "shared", "data", "onnx"))
    ap.add_argument("--stack", action="append",
                    help="model stack, repeatable (default: the default stack)")
    ap.add_argument("--db", action="append", default=[],
                    help="perf database (SQLite, or gzip-compressed .db.gz) for a stack "
                         "with the db model; repeatable, later files' rows win")
    ap.add_argument("--out", default="-",
                    help="Markdown file whose run-graph block is replaced ('-': print)")
    ap.add_argument("--max-error", type=float)
    args = ap.parse_args()
    started = time.time()
    runs = {}
    for path in args.runs:
        with open(path) as f:
            runs.update(json.load(f))
    with open(args.overheads) as f:
        probe = json.load(f)
    host = launch_host_us(runs) if args.host == "replay" else {}
    stacks = args.stack or [run_measured.DEFAULT]
    with tempfile.TemporaryDirectory() as work:
        db = merge_databases(args.db, os.path.join(work, "kernels.db")) if args.db else None
        listed = os.path.join(work, "launches.json")
        table = os.path.join(work, "overheads.json")
        tables = {}

        def replay_overheads(name, step, flags):
            """The table of `name`'s step (written once, whatever the stack)."""
            if name not in tables:
                kind_us = left_out_kind_us(host, name) if host else {}
                launches = {}
                if kind_us:
                    run_e2e.estimate_graph(args.build, step, args.device, "roofline", None,
                                           overheads=args.overheads, flags=flags,
                                           options=["launch-list=" + listed])
                    with open(listed) as f:
                        launches = json.load(f)
                tables[name] = replay_table(probe, launches, kind_us)
            with open(table, "w") as f:
                json.dump(tables[name], f)
            return table

        def predictor(stack):
            models = None if stack == run_measured.DEFAULT else stack

            def predict(name):
                step, flags = step_source(name, args.configs, args.onnx_dir, args.build, work)
                return run_e2e.estimate_graph(args.build, step, args.device, models, None,
                                              db=db,
                                              overheads=replay_overheads(name, step, flags),
                                              flags=flags)["e2e_us"]
            return predict

        by_stack = {st: score(runs, predictor(st)) for st in stacks}
        text, mean = report(by_stack, args.device, args.host)
    write_section(args.out, BEGIN, END, BEGIN + "\n" + text + END + "\n",
                  time.time() - started)
    if args.max_error is not None and not mean <= args.max_error:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
