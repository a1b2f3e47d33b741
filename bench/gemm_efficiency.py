#!/usr/bin/env python3
"""How close the NeuSight GPUs run FP32 GEMMs to their datasheet peak.

For each GPU and op (bmm, linear), prints the median and 10th/90th percentile
of achieved/roofline over the largest 10% of kernels (by FLOPs), and the
lowest measured latency. The spread between GPUs is what a model trained on
the other GPUs has to predict from datasheet figures (docs/accuracy.md).

    bench/gemm_efficiency.py [neusight-dir]
"""
import csv
import gzip
import json
import os
import statistics
import sys


def quantile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        here, "..", "..", "shared", "data", "kernels", "neusight")
    if not os.path.isdir(data):
        sys.exit(f"error: NeuSight data not found at {data}")
    print("| GPU | op | FP32 peak (GFLOP/s) | big-kernel efficiency p50 (p10-p90) | min latency (us) |")
    print("|---|---|---|---|---|")
    for op in ("bmm", "linear"):
        folder = os.path.join(data, op)
        for name in sorted(os.listdir(folder)):
            device = name.split(".csv")[0]
            spec_path = os.path.join(data, device + ".json")
            with open(spec_path) as f:
                spec = json.load(f)
            peak = spec["SingleFLOPs"] * 1e9
            bandwidth = spec["Mem_Bw"] * 1e9
            rows = []
            with gzip.open(os.path.join(folder, name), "rt") as f:
                for line, r in enumerate(csv.DictReader(f), start=2):
                    try:
                        b, m, n, k = (float(r[c]) for c in "BMNK")
                        us = float(r["Latency"]) * 1e3
                    except (KeyError, ValueError):
                        sys.exit(f"error: {name}:{line}: bad B/M/N/K/Latency")
                    flops = 2 * b * m * n * k
                    nbytes = 4 * b * (m * k + k * n + m * n)
                    roof = max(flops / peak, nbytes / bandwidth) * 1e6
                    rows.append((flops, roof / us, us))
            rows.sort()
            big = sorted(e for _, e, _ in rows[int(0.9 * len(rows)):])
            print(f"| {spec['Device']} | {op} | {spec['SingleFLOPs']} | "
                  f"{statistics.median(big):.2f} ({quantile(big, 0.1):.2f}-"
                  f"{quantile(big, 0.9):.2f}) | {min(u for *_, u in rows):.1f} |")


if __name__ == "__main__":
    main()
