#!/usr/bin/env python3
"""Write the kernel list of the E2E transformer steps for perf-bench --from.

Builds every step measure_steps.py times (the NeuSight labels' models,
sequences and batches) in FP32 and BF16 with `perf-translate
--import-model-config`, lists its kernels with `perf-opt
--estimate=kernel-list=FILE`, and merges the lists into one (counts summed
per kernel). Integer kernels (index arithmetic) are left out: perf-bench
measures floating-point kernels only.

    e2e_kernels.py [--build DIR] [--configs DIR] [--out e2e-kernels.json]
"""

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "bench", "e2e"))
import measure_steps  # noqa: E402
import run_measured  # noqa: E402
from tool_run import run  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--configs", default=os.path.join(ROOT, "data", "e2e", "configs"))
    ap.add_argument("--out", default=os.path.join(HERE, "e2e-kernels.json"))
    ap.add_argument("--device", default="h200", help="catalog GPU the lists are written for")
    args = ap.parse_args()
    merged = {}
    with tempfile.TemporaryDirectory() as work:
        step, listed = os.path.join(work, "step.mlir"), os.path.join(work, "kernels.json")
        for label in measure_steps.DEFAULT_LABELS:
            model, phase, seq, batch = measure_steps.parse_label(label)
            for dtype in ("fp32", "bf16"):
                # The step as the step-accuracy harness builds it.
                run_measured.build_step(
                    args.build, args.configs,
                    {"model": model, "phase": phase, "seq": seq, "batch": batch,
                     "dtype": dtype, "attn": "eager"}, step)
                run(
                    [os.path.join(args.build, "bin", "perf-opt"), step,
                     "--perf-device=" + args.device,
                     "--estimate=kernel-list=" + listed, "-o", os.devnull])
                with open(listed) as f:
                    for k in json.load(f)["kernels"]:
                        if k["dtype"].startswith(("i", "u")):
                            continue
                        key = (k["kind"], k["dtype"], k["signature"])
                        if key in merged:
                            merged[key]["count"] += k["count"]
                        else:
                            merged[key] = dict(k)
            print("%s: %d kernels so far" % (label, len(merged)), file=sys.stderr)
    with open(args.out, "w") as f:
        json.dump({"schema": "perf.kernel_list/1", "kernels": list(merged.values())}, f,
                  indent=0)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
