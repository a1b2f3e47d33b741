#!/usr/bin/env python3
"""Step-time accuracy on whole steps measured with PyTorch on a GPU.

Reads the perf.measured_steps/1 files that runtime/bench/campaign/measure_steps.py
writes (data/measured/h200/steps*.json: prefill, training with and without
Adam, and generation steps, FP32 and BF16, eager and fused attention), builds
each step from its model config with `perf-translate --import-model-config`
(the same dtype, attention, phase, optimizer and expert routing, and
`--kv-cache=copy` for steps run with transformers 5), estimates it
with `perf-opt --estimate` on the measured GPU, and writes a Markdown report:
per step the measured and predicted times and the error, then the mean and
worst error by group.

    bench/e2e/run_measured.py [--steps FILE]... [--configs DIR] [--build DIR]
                              [--device NAME] [--stack STACK]...
                              [--out docs/e2e-h200.md] [--max-error PCT]
                              [--max-worst PCT]

The default stack is what `perf-opt --estimate` uses with no models option.
No model was fitted on these steps. Exits 2 when a step cannot be built or
estimated, 1 when the default stack's mean (or worst) error over the groups
bounded by --max-error (--max-worst) exceeds them.
"""

import argparse
import glob
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_e2e  # noqa: E402

ROOT = run_e2e.ROOT
DEFAULT = "default"

# perf-opt's catalog name of the GPU a measurement file names.
DEVICES = {"NVIDIA H200": "h200", "NVIDIA H100 80GB HBM3": "h100"}


def build_step(build, configs, s, path):
    cmd = [os.path.join(build, "bin", "perf-translate"), "--import-model-config",
           os.path.join(configs, s["model"] + ".json"), "--batch=%d" % s["batch"],
           "--dtype=" + s["dtype"], "--expert-routing=single",
           "--attention=" + s["attn"], "--kv-cache=" + s.get("kv_cache", "none"), "-o", path]
    if s["phase"] == "decode":
        cmd += ["--phase=decode", "--context=%d" % s["seq"], "--seq=1"]
    else:
        cmd.append("--seq=%d" % s["seq"])
    if s["phase"] == "train":
        cmd += ["--phase=training", "--optimizer=" + s.get("optimizer", "none")]
    head = run_e2e.HEADS.get((s["model"], "train" if s["phase"] == "train" else "inf"))
    if head:
        cmd.append("--head=" + head)
    run_e2e.run(cmd)


def estimate(build, step, gpu, stack, db=None, ml_dir=None):
    """The report of `step` priced by `stack`; "STACK@DEVICE" prices with
    another device spec (a probe's JSON), "STACK+HOST" with a host of the
    catalog (data/hosts) or a host overhead table."""
    host = None
    if "+" in stack:
        stack, host = stack.split("+", 1)
    if "@" in stack:
        stack, gpu = stack.split("@", 1)
    return run_e2e.estimate_graph(build, step, gpu, None if stack == DEFAULT else stack,
                                  ml_dir, db, overheads=host)


def group(s):
    """The rows a summary line pools: phase, dtype and attention."""
    phase = {"inf": "prefill", "train": "training", "decode": "decode"}[s["phase"]]
    if s["phase"] == "train":
        phase += " + adam" if s.get("optimizer") == "adam" else ""
    return "%s %s %s" % (phase, s["dtype"], s["attn"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", action="append",
                    help="measured steps (default: data/measured/h200/steps*.json, "
                    "steps-repeat.json left out)")
    ap.add_argument("--configs", default=os.path.join(ROOT, "data", "e2e", "configs"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--device", help="catalog GPU or device JSON such as perf-bench --probe "
                    "writes (default: the catalog GPU of the files' device name)")
    ap.add_argument("--stack", action="append",
                    help="model stacks (default: the default stack, the default stack with "
                    "the probed device spec, the default stack with the host h200-vm, and "
                    "roofline); STACK@DEVICE prices on DEVICE (catalog GPU or device JSON), "
                    "STACK+HOST with HOST's overheads (a catalog host or a table)")
    ap.add_argument("--ml-dir", help="model folder (default: the one perf-opt ships with)")
    ap.add_argument("--db", help="perf database for stacks with the db model (gunzipped)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "e2e-h200.md"))
    ap.add_argument("--max-error", type=float, default=0)
    ap.add_argument("--max-worst", type=float, default=0)
    ap.add_argument("--groups", default="",
                    help="comma-separated groups the bounds apply to (default: all)")
    args = ap.parse_args()
    files = args.steps or sorted(
        f for f in glob.glob(os.path.join(ROOT, "data", "measured", "h200", "steps*.json"))
        if not f.endswith("steps-repeat.json"))
    probed = os.path.join(ROOT, "data", "measured", "h200", "device.json")
    stacks = args.stack or [DEFAULT, DEFAULT + "@" + probed, DEFAULT + "+h200-vm", "roofline"]
    steps, device = [], args.device
    for f in files:
        with open(f) as fh:
            doc = json.load(fh)
        if doc.get("schema") != "perf.measured_steps/1":
            print("error: %s: not a perf.measured_steps/1 file" % f, file=sys.stderr)
            return 2
        gpu = device or DEVICES.get(doc["device"])
        if not gpu:
            print("error: %s: no catalog GPU for '%s' (--device)" % (f, doc["device"]),
                  file=sys.stderr)
            return 2
        # transformers 5 copies a prefill's keys and values into its
        # DynamicCache; transformers 4 kept them as they were. Between
        # timed decode steps measure_steps.py crops the cache back to its
        # context, so each step's torch.cat reads a slice of a longer cache.
        kv_cache = "copy" if str(doc.get("transformers", "")).split(".")[0] >= "5" else "none"
        for s in doc["steps"]:
            if "ms_median" in s:
                kv = "cropped" if kv_cache == "copy" and s["phase"] == "decode" else kv_cache
                steps.append(dict(s, gpu=gpu, file=os.path.basename(f), kv_cache=kv))
    rows = []
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "step.mlir")
        for i, s in enumerate(steps):
            print("[%d/%d] %s %s %s" % (i + 1, len(steps), s["label"], s["dtype"], s["attn"]),
                  file=sys.stderr)
            try:
                build_step(args.build, args.configs, s, path)
                graphs = {st: estimate(args.build, path, s["gpu"], st, args.db, args.ml_dir)
                          for st in stacks}
            except RuntimeError as e:
                print("error: " + str(e), file=sys.stderr)
                return 2
            rows.append((s, graphs))

    def err(s, g):
        return 100.0 * (g["e2e_us"] / 1000.0 - s["ms_median"]) / s["ms_median"]

    gpus = sorted({os.path.basename(s["gpu"]) for s in steps})
    lines = ["# End-to-end accuracy on steps measured on %s" % ", ".join(g.upper() for g in gpus),
             "",
             "Generated by `bench/e2e/run_measured.py` (do not edit by hand). The steps were",
             "measured with PyTorch %s and transformers on the GPU (data/measured/h200/README.md:" %
             ", ".join(sorted({json.load(open(f)).get("torch", "?") for f in files})),
             "random weights, input ids of ones, CUDA events, the median of 5-10 runs); each is",
             "built by `perf-translate --import-model-config` with the same dtype, attention,",
             "phase and optimizer (`--kv-cache=copy` for transformers 5, whose DynamicCache",
             "copies a prefill's keys and values; `--kv-cache=cropped` for decode steps, whose",
             "cache the harness cropped back to its context between runs), and estimated by",
             "`perf-opt --estimate` on",
             "that GPU. This GPU",
             "is in no model's training data (held out): *default* is the stack `perf-opt",
             "--estimate` uses with no models option on the catalog's H200 (datasheet figures),",
             "*default@data/measured/h200/device.json* the same stack on the device spec",
             "`perf-bench --probe` measured on this GPU (achieved FLOP/s and bandwidth: what a",
             "user with the GPU at hand gives perf), *default+h200-vm* the default stack with",
             "the host spec of the H200 virtual machine (data/hosts/h200-vm.json: per-op host",
             "costs and a per-block time fitted on host-ops.json, measured on another start",
             "of the machine than the steps; bench/e2e/host_spec.py), *roofline* the datasheet",
             "roofline.",
             "Error = (predicted - measured) / measured; *host* is the share of the predicted",
             "step in which the GPU waits for the host (1 - GPU active / end-to-end).", "",
             "| step | dtype | attention | measured ms | " +
             " | ".join("%s ms | err %%" % st for st in stacks) + " | host % |",
             "|" + "---|" * (4 + 2 * len(stacks) + 1)]
    for s, graphs in rows:
        d = graphs[stacks[0]]
        host = 100.0 * (1 - d.get("gpu_active_us", d["e2e_us"]) / d["e2e_us"]) \
            if d["e2e_us"] else 0.0
        name = s["label"] + (" + adam" if s.get("optimizer") == "adam" else "")
        lines.append("| %s | %s | %s | %.2f | %s | %.0f |" % (
            name, s["dtype"], s["attn"], s["ms_median"],
            " | ".join("%.2f | %+.1f" % (g["e2e_us"] / 1000.0, err(s, g))
                       for g in (graphs[st] for st in stacks)), host))
    lines += ["", "## Summary", "",
              "| group | steps | " + " | ".join("%s mean abs err %% | worst %%" % st
                                                for st in stacks) + " |",
              "|" + "---|" * (2 + 2 * len(stacks))]
    failed = False
    bounded = set(g for g in args.groups.split(",") if g)
    groups = sorted({group(s) for s, _ in rows})
    for name in groups + ["all"]:
        mine = [(s, g) for s, g in rows if name == "all" or group(s) == name]
        cells = []
        for st in stacks:
            errors = [abs(err(s, g[st])) for s, g in mine]
            mean, worst = sum(errors) / len(errors), max(errors)
            cells.append("%.1f | %.1f" % (mean, worst))
            if st == stacks[0] and name != "all" and (not bounded or name in bounded):
                if args.max_error and mean > args.max_error:
                    print("error: %s: mean |error| %.1f%% exceeds %.1f%%" %
                          (name, mean, args.max_error), file=sys.stderr)
                    failed = True
                if args.max_worst and worst > args.max_worst:
                    print("error: %s: worst |error| %.1f%% exceeds %.1f%%" %
                          (name, worst, args.max_worst), file=sys.stderr)
                    failed = True
        lines.append("| %s | %d | %s |" % (name, len(mine), " | ".join(cells)))
    run_e2e.write_report("\n".join(lines).replace(ROOT + os.sep, "") + "\n", args.out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
