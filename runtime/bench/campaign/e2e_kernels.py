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
perf-bench --run-graph (hopper.sh's run-graph phase). With --examples it
writes the launch lists of the examples and of ONNX models of --onnx-dir
(EXAMPLE_LISTS, named as bench/e2e/run_graph_eval.py reads them) into
another.
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
import run_graph_eval  # noqa: E402
import run_measured  # noqa: E402
from tool_run import run  # noqa: E402


# The graphs beside the transformers that --run-graph replays: the shipped
# examples, and CNNs of the ONNX model zoo at batch 32, inference and
# training (the backward synthesized).
EXAMPLE_LISTS = ["example_dlrm_step", "example_mlp_training", "example_two_branch"] + [
    "onnx_%s-%s-32-fp32" % (model, phase)
    for model in ("densenet121", "inception_v1", "resnet50", "squeezenet", "vgg19")
    for phase in ("inf", "train")]


def write_tar(path, members):
    """`members` ({name: bytes}) as a gzip'd tar with fixed member times and
    order: the archive is the same byte for byte when the members are."""
    with open(path, "wb") as raw, gzip.GzipFile(
            filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for name in sorted(members):
                info = tarfile.TarInfo(name)
                info.size, info.mtime, info.mode = len(members[name]), 0, 0o644
                tar.addfile(info, io.BytesIO(members[name]))


def add_kernels(merged, listed):
    """The floating-point kernels of `listed` (a perf-opt kernel list) merged
    into `merged` by database key, their counts added."""
    with open(listed) as f:
        for k in json.load(f)["kernels"]:
            if k["dtype"].startswith(("i", "u")):
                continue
            key = (k["kind"], k["dtype"], k["signature"])
            if key in merged:
                merged[key]["count"] += k["count"]
            else:
                merged[key] = dict(k)


def write_kernel_list(path, merged):
    with open(path, "w") as f:
        json.dump({"schema": "perf.kernel_list/1", "kernels": list(merged.values())}, f,
                  indent=0)
        f.write("\n")


def example_launches(build, onnx_dir, device, work, kernels):
    """{NAME.json: launch list} of EXAMPLE_LISTS, priced by the roofline; their
    kernels merged into `kernels`."""
    out = {}
    launched = os.path.join(work, "example-launches.json")
    listed = os.path.join(work, "example-kernels.json")
    for name in EXAMPLE_LISTS:
        source, flags = run_graph_eval.step_source(name, None, onnx_dir, build, work)
        run([os.path.join(build, "bin", "perf-opt"), source, "--perf-device=" + device] +
            flags + ["--estimate=models=roofline kernel-list=%s launch-list=%s"
                     % (listed, launched), "-o", os.devnull])
        with open(launched, "rb") as f:
            out[name + ".json"] = f.read()
        add_kernels(kernels, listed)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--configs", default=os.path.join(ROOT, "data", "e2e", "configs"))
    ap.add_argument("--out", default=os.path.join(HERE, "e2e-kernels.json"))
    ap.add_argument("--device", default="h200", help="catalog GPU the lists are written for")
    ap.add_argument("--launches", help="also write the steps' launch lists to this .tar.gz")
    ap.add_argument("--examples",
                    help="write the launch lists of EXAMPLE_LISTS to this .tar.gz")
    ap.add_argument("--example-kernels",
                    help="with --examples, also write the examples' kernel list here")
    ap.add_argument("--onnx-dir", default=os.path.join(ROOT, "..", "shared", "data", "onnx"))
    args = ap.parse_args()
    if args.examples:
        with tempfile.TemporaryDirectory() as work:
            kernels = {}
            write_tar(args.examples,
                      example_launches(args.build, args.onnx_dir, args.device, work, kernels))
            if args.example_kernels:
                write_kernel_list(args.example_kernels, kernels)
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
                add_kernels(merged, listed)
            print("%s: %d kernels so far" % (label, len(merged)), file=sys.stderr)
    if args.launches:
        write_tar(args.launches, launches)
    write_kernel_list(args.out, merged)
    return 0


if __name__ == "__main__":
    sys.exit(main())
