#!/usr/bin/env python3
"""Record a PyTorch execution trace and its Kineto trace of whole transformer steps.

Each step (a label of measure_steps.py, a dtype and an attention
implementation) is built and warmed up as measure_steps.py does, then run
once more under torch.profiler with an ExecutionTraceObserver, which writes
the pair perf-translate --import-trace reads: <name>.et.json.gz and
<name>.kineto.json.gz.

    trace_steps.py --configs DIR --out DIR LABEL:DTYPE:ATTN...
"""

import argparse
import gzip
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_steps  # noqa: E402


def gzip_to(src, dst):
    with open(src, "rb") as f, gzip.open(dst, "wb") as g:
        shutil.copyfileobj(f, g)
    os.remove(src)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("steps", nargs="+")
    args = ap.parse_args()
    import torch
    import transformers
    from torch.profiler import ExecutionTraceObserver, ProfilerActivity, profile
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dtypes = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
    os.makedirs(args.out, exist_ok=True)
    for spec in args.steps:
        label, dname, attn = spec.split(":")
        model, phase, seq, batch = measure_steps.parse_label(label)
        m, mtype = measure_steps.build(
            torch, transformers, os.path.join(args.configs, model + ".json"),
            model, phase, dtypes[dname], attn)
        # Warm-up and a measured time, the same as measure_steps.py's.
        times = measure_steps.time_step(torch, m, mtype, phase, seq, batch, 3, 2)
        name = "%s-%s-%s" % (label, dname, attn)
        et_path = os.path.join(args.out, name + ".et.json")
        k_path = os.path.join(args.out, name + ".kineto.json")
        et = ExecutionTraceObserver().register_callback(et_path)
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                       execution_trace_observer=et)
        # One step under the profiler, after two untraced ones (and, for a
        # decode step, after the untraced prefill that fills its cache).
        measure_steps.time_step(torch, m, mtype, phase, seq, batch, 1, 2,
                                timed=prof)
        prof.export_chrome_trace(k_path)
        gzip_to(et_path, et_path + ".gz")
        gzip_to(k_path, k_path + ".gz")
        print("%s: %.3f ms unprofiled; %s" % (name, sorted(times)[1], k_path + ".gz"),
              flush=True)
        del m
        torch.cuda.empty_cache()


if __name__ == "__main__":
    sys.exit(main())
