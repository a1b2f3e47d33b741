#!/usr/bin/env python3
"""Time fused attention (torch.nn.functional.scaled_dot_product_attention) on the local GPU.

Sweeps batch, heads, sequence, head size, causal masking and dtype, forward
and forward + backward, with the backend PyTorch picks (flash or
memory-efficient attention on Hopper), and writes one CSV row per shape:
the perf database's attention key (flops, bytes) beside the shape and the
median of --reps timed runs between CUDA events.

    attention_sweep.py --out attention.csv [--reps N]
"""

import argparse
import csv
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_steps  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F
    dtypes = {"bf16": torch.bfloat16, "f16": torch.float16}
    rows = []
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["device", "dtype", "pass", "b", "h", "s", "d", "causal",
                    "flops", "bytes", "latency_us", "p10_us", "p90_us"])
        for dname, b, h, s, d, causal, pas in itertools.product(
                ("bf16", "f16"), (1, 4, 16), (16, 32), (512, 1024, 2048, 4096),
                (64, 128), (False, True), ("fwd", "fwd+bwd")):
            if b * h * s * s > 16 * 32 * 4096 * 2048:
                continue
            dt = dtypes[dname]
            q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dt,
                                   requires_grad=(pas != "fwd")) for _ in range(3))
            go = torch.randn(b, h, s, d, device="cuda", dtype=dt)

            def run():
                o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                if pas != "fwd":
                    o.backward(go)

            for _ in range(3):
                run()
            torch.cuda.synchronize()
            ts = sorted(measure_steps.event_time_ms(torch, run) * 1000.0
                        for _ in range(args.reps))
            # Q K^T and P V: 4 b h s^2 d, halved when causal; backward 2.5x.
            flops = 4 * b * h * s * s * d * (0.5 if causal else 1.0)
            if pas != "fwd":
                flops *= 3.5
            elem = b * h * s * d
            nbytes = (4 if pas == "fwd" else 11) * elem * q.element_size()
            n = len(ts)
            w.writerow([torch.cuda.get_device_name(0), dname, pas, b, h, s, d,
                        int(causal), int(flops), nbytes, round(ts[n // 2], 3),
                        round(ts[n // 10], 3), round(ts[(9 * n) // 10], 3)])
            f.flush()
            del q, k, v, go
    return 0


if __name__ == "__main__":
    sys.exit(main())
