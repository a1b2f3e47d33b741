#!/usr/bin/env python3
"""Step-time accuracy against steps replayed by perf-bench --run-graph.

hopper.sh's run-graph phase replays the E2E steps from their launch lists
(runtime/bench/campaign/e2e-launches.tar.gz) and writes run-graph.json: for
each list LABEL-DTYPE, the perf.graph_run/1 document perf-bench wrote. This
harness builds the same step (e2e_kernels.py's build: the label's model,
phase, sequence and batch, eager attention), estimates it with `perf-opt
--estimate` on the GPU it ran on, with the host overhead table of the replay
itself (perf-bench's probe: a launch's cudaLaunchKernel call and nothing
else, since the replay runs no framework), and writes a Markdown report: per
step the measured and predicted times and the error, then the mean and worst.

    bench/e2e/run_graph_eval.py --runs run-graph.json [--device h200]
        [--overheads data/measured/h200/host-overheads.json] [--build DIR]
        [--configs DIR] [--stack STACK] [--out FILE] [--max-error PCT]

Only steps the replay ran whole are scored: a step with launches not run
(collectives, kernels perf-bench has no benchmark for) is listed with the
count and left out of the mean. Exits 2 when a step cannot be built or
estimated, 1 when the mean error exceeds --max-error.
"""

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "runtime", "bench", "campaign"))
import run_e2e  # noqa: E402
import run_measured  # noqa: E402
import measure_steps  # noqa: E402

ROOT = run_e2e.ROOT


def split_name(name):
    """LABEL-DTYPE (e2e_kernels.py's member names) -> (label, dtype)."""
    label, _, dtype = name.rpartition("-")
    return label, dtype


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
            predicted = predict(name)
            measured = graph["measured_us"]
            error = predicted / measured - 1 if not_run == 0 else None
            rows.append((name, measured, predicted, error, not_run))
    return rows


def report(rows, device, stack):
    lines = ["Steps replayed by `perf-bench --run-graph` on %s, estimated by `perf-opt "
             "--estimate` (%s) with the replay's host overheads." % (device, stack), "",
             "| step | measured us | predicted us | error | launches not run |",
             "|---|---:|---:|---:|---|"]
    scored = []
    for name, measured, predicted, error, not_run in rows:
        if measured is None:
            lines.append("| %s | - | - | - | %s |" % (name, not_run))
            continue
        cell = "%+.1f%%" % (100 * error) if error is not None else "not scored"
        lines.append("| %s | %.1f | %.1f | %s | %s |" % (name, measured, predicted, cell,
                                                        not_run))
        if error is not None:
            scored.append(abs(error))
    mean = 100 * sum(scored) / len(scored) if scored else float("nan")
    worst = 100 * max(scored) if scored else float("nan")
    lines += ["", "Mean |error| %.1f%%, worst %.1f%%, over %d steps run whole."
              % (mean, worst, len(scored))]
    return "\n".join(lines) + "\n", mean


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", required=True, help="hopper.sh's run-graph.json")
    ap.add_argument("--device", default="h200")
    ap.add_argument("--overheads",
                    default=os.path.join(ROOT, "data", "measured", "h200", "host-overheads.json"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--configs", default=os.path.join(ROOT, "data", "e2e", "configs"))
    ap.add_argument("--stack", default=run_measured.DEFAULT)
    ap.add_argument("--out", default="-")
    ap.add_argument("--max-error", type=float)
    args = ap.parse_args()
    with open(args.runs) as f:
        runs = json.load(f)
    with tempfile.TemporaryDirectory() as work:
        step = os.path.join(work, "step.mlir")

        def predict(name):
            label, dtype = split_name(name)
            model, phase, seq, batch = measure_steps.parse_label(label)
            run_measured.build_step(args.build, args.configs,
                                    {"model": model, "phase": phase, "seq": seq,
                                     "batch": batch, "dtype": dtype, "attn": "eager"}, step)
            stack = None if args.stack == run_measured.DEFAULT else args.stack
            return run_e2e.estimate_graph(args.build, step, args.device, stack, None,
                                          overheads=args.overheads)["e2e_us"]

        text, mean = report(score(runs, predict), args.device, args.stack)
    run_e2e.write_report(text, args.out)
    if args.max_error is not None and not mean <= args.max_error:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
