#!/usr/bin/env python3
"""Measure the device's gap between back-to-back kernels on one stream.

A step's schedule puts a gap between two kernels of a stream when the second
was launched before the first ended (CriticalPath's --kernel-gap-us, 1 us by
default). This measures it: the stream is held by torch.cuda._sleep while the
host queues --kernels small element-wise kernels (1024 elements) behind it,
so that the GPU runs them back to back with no host in between, and
torch.profiler's Kineto trace gives each kernel's start and end. The gap is
the next kernel's start minus this one's end. Measured twice: plain, and with
a CUDA event recorded after each kernel (as perf-bench --run-graph does after
a launch another stream waits for).

    kernel_gap.py --out kernel-gap.json [--kernels 400] [--rounds 5]

Writes {"schema": "perf.kernel_gap/1", "device", "source", "gaps":
{"plain" | "event": {"median_us", "p10_us", "p90_us", "mean_us", "count",
"kernel_us"}}} where kernel_us is the median kernel duration.
"""

import argparse
import json
import os
import sys
import tempfile


def gaps_of(events):
    """Start-to-end gaps (us) between consecutive kernels of a trace's
    events, and their durations."""
    kernels = sorted((e for e in events if e.get("cat") == "kernel" and e.get("ph") == "X"),
                     key=lambda e: e["ts"])
    gaps = [b["ts"] - (a["ts"] + a["dur"]) for a, b in zip(kernels, kernels[1:])]
    return gaps, [k["dur"] for k in kernels]


def summary(gaps, durations):
    s, d = sorted(gaps), sorted(durations)
    q = lambda v, p: v[int(p * (len(v) - 1))]  # noqa: E731
    return {"median_us": q(s, 0.5), "p10_us": q(s, 0.1), "p90_us": q(s, 0.9),
            "mean_us": sum(s) / len(s), "count": len(s), "kernel_us": q(d, 0.5)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--kernels", type=int, default=400,
                    help="kernels queued behind the sleep (under the driver's queue depth)")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    import torch
    from torch.profiler import ProfilerActivity, profile

    x = torch.ones(1024, device="cuda")
    stream = torch.cuda.current_stream()
    result = {"schema": "perf.kernel_gap/1", "device": torch.cuda.get_device_name(),
              "source": "torch %s cuda %s" % (torch.__version__, torch.version.cuda),
              "gaps": {}}
    with tempfile.TemporaryDirectory() as work:
        trace = os.path.join(work, "trace.json")
        for variant in ("plain", "event"):
            gaps, durations = [], []
            events = [torch.cuda.Event() for _ in range(args.kernels)]
            for round_ in range(args.rounds + 1):  # the first round warms up
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    # 50 ms of sleep at any clock under 2 GHz holds the
                    # stream while the host queues the kernels.
                    torch.cuda._sleep(100_000_000)
                    for i in range(args.kernels):
                        x.add_(1.0)
                        if variant == "event":
                            events[i].record(stream)
                    torch.cuda.synchronize()
                prof.export_chrome_trace(trace)
                with open(trace) as f:
                    g, d = gaps_of(json.load(f)["traceEvents"])
                # The sleep kernel is the first; the gap after it is the
                # host's, not the device's.
                if round_ > 0:
                    gaps += g[1:]
                    durations += d[1:]
            result["gaps"][variant] = summary(gaps, durations)
            print("kernel_gap %s: %s" % (variant, result["gaps"][variant]), file=sys.stderr)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
