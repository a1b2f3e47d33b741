#!/usr/bin/env python3
"""Property test of the config importer and the estimate: over a grid of
batch sizes, sequence lengths and model sizes the step time must grow
(never shrink) with each, and a BF16 step on tensor cores must be faster
than the FP32 one on an H100.

    bench/e2e/monotonic.py [--build DIR]

Exits 1 listing every violation.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def gpt2(layers, hidden, heads):
    return {"model_type": "gpt2", "n_layer": layers, "n_embd": hidden, "n_head": heads,
            "n_positions": 2048, "vocab_size": 50257}


def step_ms(build, config, work, batch, seq, dtype="fp32", gpu="a100", phase="inference",
            context=0, key="e2e_us"):
    path = os.path.join(work, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    ir = subprocess.run([os.path.join(build, "bin", "perf-translate"), "--import-model-config",
                         path, "--batch=%d" % batch, "--seq=%d" % seq, "--dtype=" + dtype,
                         "--phase=" + phase] + (["--context=%d" % context] if context else []),
                        capture_output=True, text=True, check=True).stdout
    out = subprocess.run([os.path.join(build, "bin", "perf-opt"), "--perf-device=" + gpu,
                          "--estimate=format=json models=tile,heuristic,roofline"],
                         input=ir, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["graphs"][0][key] / 1000.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    sizes = [gpt2(12, 768, 12), gpt2(24, 1024, 16), gpt2(36, 1280, 20)]
    failures = []
    with tempfile.TemporaryDirectory() as work:
        for phase in ("inference", "training"):
            for i, config in enumerate(sizes):
                for seq in (128, 512):
                    times = [step_ms(args.build, config, work, b, seq, phase=phase)
                             for b in (1, 2, 4, 8)]
                    if times != sorted(times):
                        failures.append("%s size %d seq %d: batch 1-8 gives %s" % (
                            phase, i, seq, times))
                times = [step_ms(args.build, config, work, 2, s, phase=phase)
                         for s in (128, 256, 512, 1024)]
                if times != sorted(times):
                    failures.append("%s size %d batch 2: seq 128-1024 gives %s" % (
                        phase, i, times))
            times = [step_ms(args.build, c, work, 2, 512, phase=phase) for c in sizes]
            if times != sorted(times):
                failures.append("%s: model sizes give %s" % (phase, times))
        # A decode step reads the whole KV cache: longer contexts take more
        # device time (the step itself is host-bound in eager PyTorch), and
        # one token costs less than a prefill of the same context.
        for i, config in enumerate(sizes):
            times = [step_ms(args.build, config, work, 8, 1, "fp16", "h100", "decode", c,
                             "sum_kernel_us") for c in (128, 512, 1024, 2000)]
            if times != sorted(set(times)):
                failures.append("decode size %d: context 128-2000 gives %s" % (i, times))
            prefill = step_ms(args.build, config, work, 8, 1024, "fp16", "h100",
                              key="sum_kernel_us")
            if not times[2] < prefill:
                failures.append("decode size %d: one token after 1024 (%.2f ms) is not "
                                "under the 1024-token prefill (%.2f ms)" % (i, times[2], prefill))
        fp32 = step_ms(args.build, sizes[1], work, 8, 512, "fp32", "h100")
        bf16 = step_ms(args.build, sizes[1], work, 8, 512, "bf16", "h100")
        if not bf16 < fp32 / 2:
            failures.append("H100 bf16 step %.1f ms is not under half the fp32 %.1f ms"
                            % (bf16, fp32))
    for f in failures:
        print("violation: " + f, file=sys.stderr)
    print("%d violations" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
