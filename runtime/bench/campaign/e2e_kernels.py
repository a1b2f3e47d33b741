#!/usr/bin/env python3
"""Write the kernel list of the E2E transformer steps for perf-bench --from.

Builds every step measure_steps.py times (the NeuSight labels' models,
sequences and batches) in FP32 and BF16 with `perf-translate
--import-model-config`, lists its kernels with `perf-opt
--estimate=kernel-list=FILE`, and merges the lists into one (counts summed
per kernel). Integer kernels (index arithmetic) are left out: perf-bench
measures floating-point kernels only.

    e2e_kernels.py [--build DIR] [--configs DIR] [--out e2e-kernels.json]
                   [--launches e2e-launches.tar.gz]

With --launches it also writes each step's launch list (perf-opt
--estimate=launch-list=FILE, priced by the roofline so the lists change only
when the steps do) into one gzip'd tar, LABEL-DTYPE.json each, for
perf-bench --run-graph (hopper.sh's run-graph phase).
"""

import argparse
import gzip
import io
import json
import os
import sys
import tarfile
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
    ap.add_argument("--launches", help="also write the steps' launch lists to this .tar.gz")
    args = ap.parse_args()
    merged = {}
    launches = {}
    with tempfile.TemporaryDirectory() as work:
        step, listed = os.path.join(work, "step.mlir"), os.path.join(work, "kernels.json")
        launched = os.path.join(work, "launches.json")
        for label in measure_steps.DEFAULT_LABELS:
            model, phase, seq, batch = measure_steps.parse_label(label)
            for dtype in ("fp32", "bf16"):
                # The step as the step-accuracy harness builds it.
                run_measured.build_step(
                    args.build, args.configs,
                    {"model": model, "phase": phase, "seq": seq, "batch": batch,
                     "dtype": dtype, "attn": "eager"}, step)
                estimate = "--estimate=kernel-list=" + listed
                if args.launches:
                    estimate = ("--estimate=models=roofline kernel-list=%s launch-list=%s"
                                % (listed, launched))
                run(
                    [os.path.join(args.build, "bin", "perf-opt"), step,
                     "--perf-device=" + args.device, estimate, "-o", os.devnull])
                if args.launches:
                    with open(launched, "rb") as f:
                        launches["%s-%s.json" % (label, dtype)] = f.read()
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
    if args.launches:
        # Fixed member times and order: the archive is the same byte for
        # byte when the steps are.
        with open(args.launches, "wb") as raw, gzip.GzipFile(
                filename="", mode="wb", fileobj=raw, mtime=0) as gz:
            with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
                for name in sorted(launches):
                    info = tarfile.TarInfo(name)
                    info.size, info.mtime, info.mode = len(launches[name]), 0, 0o644
                    tar.addfile(info, io.BytesIO(launches[name]))
    with open(args.out, "w") as f:
        json.dump({"schema": "perf.kernel_list/1", "kernels": list(merged.values())}, f,
                  indent=0)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
