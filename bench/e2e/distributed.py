#!/usr/bin/env python3
"""NeuSight's distributed training table, predicted from the model configs.

NeuSight (seed 001, "Evaluation: Distributed Execution") trained GPT2-Large
(sequence 1024, global batch 4 and 16) and GPT3-XL (sequence 2048, global
batch 4) on four A100-40GB joined by NVLink and on four GPUs of an H100 DGX,
each layout on its own: data parallel (DP), tensor parallel (TP, Megatron)
and pipeline parallel (PP), FP32 with AdamW. It reports the step time of the
runs that fit and marks the others out of memory (OOM). This harness builds
every cell from the HuggingFace config with `perf-translate
--import-model-config` and estimates it with `perf-opt --estimate`:

- the step time of the forward and backward passes with the causal-LM loss,
  what NeuSight's script times (two CUDA events around model(**batch) and
  accelerator.backward(loss), the optimizer step after the second);
- the memory of the same step with AdamW's states, against the GPU's.

How NeuSight's script (scripts/asplos/collect_label_distributed.py) runs
each layout, and so how the cells are built: accelerate's Megatron-LM plugin
with its defaults, so one micro-batch (the per-device batch is the global
batch over the data-parallel degree and num_micro_batches = 1; the pipeline
micro-batch count in its file names is not passed on) and no activation
recomputation.

    bench/e2e/distributed.py [--build DIR] [--configs DIR] [--stack STACK]
                             [--out FILE|-] [--max-error PCT]

--out - prints the Markdown; --out FILE replaces the part of FILE between the
harness's markers. Exits 1 when the mean error of the measured cells exceeds
--max-error or a memory verdict differs from NeuSight's, 2 when a cell cannot
be built or estimated, 77 without the configs (--skip-without-data).
"""

import argparse
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from tool_run import run  # noqa: E402
SYSTEMS = os.path.join(ROOT, "bench", "collectives", "systems")

# The two servers: the catalog GPU and the system file of its interconnect.
# "4 x A100-40GB, NVLink (600 GB/s)" is an HGX A100 board (SXM4 40GB); the
# H100 runs used four GPUs of a DGX H100.
SERVERS = {
    "a100": ("A100-SXM4-40GB", "a100_dgx.json"),
    "h100": ("H100-SXM5-80GB", "h100_dgx.json"),
}

# NeuSight's table: (model, sequence, global batch) -> server -> layout ->
# (measured ms or None for OOM, NeuSight's own error % or None).
MEASURED = {
    ("gpt2_large", 1024, 4): {
        "a100": {"dp": (452.3, 12.9), "tp": (484.9, 8.4), "pp": (1597.6, 10.3)},
        "h100": {"dp": (194.9, 9.9), "tp": (211.1, 8.0), "pp": (637.5, 2.0)},
    },
    ("gpt2_large", 1024, 16): {
        "a100": {"dp": (None, None), "tp": (None, None), "pp": (None, None)},
        "h100": {"dp": (642.1, 1.2), "tp": (729.7, 13.1), "pp": (2384.0, 10.7)},
    },
    ("gpt3_xl", 2048, 4): {
        "a100": {"dp": (None, None), "tp": (None, None), "pp": (None, None)},
        "h100": {"dp": (None, None), "tp": (1010.5, 3.7), "pp": (3554.4, 4.6)},
    },
}
GPUS_PER_SERVER = 4

BEGIN = "<!-- BEGIN DISTRIBUTED (bench/e2e/distributed.py) -->"
END = "<!-- END DISTRIBUTED -->"


def layout_pass(layout):
    """The perf-opt pass of a layout over the server's four GPUs."""
    n = GPUS_PER_SERVER
    return {
        "dp": "--perf-data-parallel=devices=%d" % n,
        "tp": "--perf-tensor-parallel=devices=%d" % n,
        "pp": "--perf-pipeline-parallel=devices=%d microbatches=1 schedule=gpipe" % n,
    }[layout]


def estimate(args, work, model, seq, global_batch, server, layout, optimizer):
    """perf-opt --estimate's JSON report of one cell's graph."""
    batch = global_batch // GPUS_PER_SERVER if layout == "dp" else global_batch
    step = os.path.join(work, "step.mlir")
    run([os.path.join(args.build, "bin", "perf-translate"), "--import-model-config",
         os.path.join(args.configs, model + ".json"), "--seq=%d" % seq,
         "--batch=%d" % batch, "--phase=training", "--loss=cross-entropy",
         "--optimizer=" + optimizer, "-o", step])
    gpu, system = SERVERS[server]
    cmd = [os.path.join(args.build, "bin", "perf-opt"), step, "--perf-device=" + gpu,
           layout_pass(layout)]
    options = ["system=" + os.path.join(SYSTEMS, system), "format=json"]
    if args.stack:
        options.append("models=" + args.stack)
    cmd.append("--estimate=" + " ".join(options))
    return json.loads(run(cmd))["graphs"][0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--configs",
                    default=os.path.join(ROOT, "..", "shared", "data", "e2e", "neusight", "configs"))
    ap.add_argument("--stack", default="",
                    help="perf-opt's --estimate=models=... (default: its own default)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "distributed.md"))
    ap.add_argument("--max-error", type=float, help="bound on the mean |error| in %%")
    ap.add_argument("--skip-without-data", action="store_true")
    args = ap.parse_args()
    if not os.path.isdir(args.configs):
        if args.skip_without_data:
            print("skipped: no configs at " + args.configs)
            return 77
        sys.exit("error: no folder " + args.configs)

    rows, errors, neusight, disagree = [], [], [], 0
    with tempfile.TemporaryDirectory() as work:
        for (model, seq, global_batch), servers in MEASURED.items():
            for server, layouts in servers.items():
                for layout, (measured, published) in layouts.items():
                    try:
                        timed = estimate(args, work, model, seq, global_batch, server,
                                         layout, "none")
                        memory = estimate(args, work, model, seq, global_batch, server,
                                          layout, "adam")["memory"]
                    except RuntimeError as e:
                        print("error: " + str(e), file=sys.stderr)
                        return 2
                    predicted = timed["e2e_us"] / 1000.0
                    peak = max(d["peak_bytes"] for d in memory["devices"]) / 2**30
                    capacity = memory["capacity_bytes"] / 2**30
                    fits = not memory["out_of_memory"]
                    agrees = fits == (measured is not None)
                    disagree += not agrees
                    err = ""
                    if measured is not None:
                        e = 100.0 * (predicted - measured) / measured
                        errors.append(abs(e))
                        err = "%+.1f" % e
                        if published is not None:
                            neusight.append(published)
                    rows.append("| %s | %d | %s | %s | %s | %.1f | %s | %s | %.1f of %.1f | %s | %s%s |" % (
                        model, global_batch, layout.upper(), SERVERS[server][0],
                        "OOM" if measured is None else "%.1f" % measured, predicted, err,
                        "" if published is None else "%.1f" % published, peak, capacity,
                        "fits" if fits else "OOM", "OOM" if measured is None else "fits",
                        "" if agrees else " (differs)"))

    mean = sum(errors) / len(errors)
    lines = [
        "Generated by `bench/e2e/distributed.py` (do not edit by hand). Predicted: the "
        "default model stack%s; measured and NeuSight's errors: seed 001." % (
            " (`%s`)" % args.stack if args.stack else ""),
        "",
        "| model | global batch | layout | GPU (x4) | measured ms | predicted ms | error % "
        "| NeuSight error % | peak GiB per GPU | predicted | measured |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ] + rows + [
        "",
        "Step time over the %d measured cells: mean |error| **%.1f%%**, worst %.1f%% "
        "(NeuSight: %.1f%% mean over the same cells). Memory: %d of %d verdicts agree "
        "with NeuSight's." % (len(errors), mean, max(errors), sum(neusight) / len(neusight),
                              len(rows) - disagree, len(rows)),
    ]
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out) as f:
            doc = f.read()
        if BEGIN not in doc or END not in doc:
            sys.exit("error: %s has no %s ... %s markers" % (args.out, BEGIN, END))
        head, rest = doc.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        with open(args.out, "w") as f:
            f.write(head + BEGIN + "\n" + text + END + tail)
    if args.max_error is not None and mean > args.max_error:
        print("error: mean |error| %.1f%% exceeds %.1f%%" % (mean, args.max_error),
              file=sys.stderr)
        return 1
    if disagree:
        print("error: %d memory verdicts differ from NeuSight's" % disagree, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
