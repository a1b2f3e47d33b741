#!/usr/bin/env python3
"""The speed baseline: the critical-path estimate of one step, written
plainly in Python from Lin et al. ("Building a Performance Model for Deep
Learning Recommendation Model Training on GPUs", Algorithm 1), on the same
perf IR text file perf-opt reads.

It reads the file line by line with one regular expression per kind of
line, prices every kernel with a roofline (A100 datasheet figures) and every
collective with a ring all-reduce, and walks the ops in program order with a
host clock (the T1/T4/T3 overheads of the paper), a ready time per stream,
a ready time per SSA value (a kernel waits for the kernels whose results it
reads, on any stream) and a ready time per device for collectives. No
tricks either way: dictionaries and floats, as one would write it from the
paper.

    baseline.py step.mlir    prints the step time and the kernel count
"""
import re
import sys

# A100-SXM4-40GB datasheet figures and the efficiencies of a plain roofline.
PEAK_FLOPS = 19.5e12 * 0.7
PEAK_BYTES = 1555e9 * 0.8
LINK_BYTES = 300e9
COLLECTIVE_LATENCY_US = 10.0
# Host overheads of the paper, in us: T1 before an op, T4 per launch, T3
# after it, T5 of a synchronization, and the gap between kernels on a stream.
T1, T3, T4, T5 = 6.0, 3.0, 5.0, 4.0
GAP = 1.0

OP = re.compile(r'^\s*(?:(%[\w.]+) = )?perf\.op "([^"]*)"(?:\(([^)]*)\))?')
KERNEL = re.compile(r'^\s*perf\.(\w+) \{(.*)\}\s*$')
SYNC = re.compile(r'^\s*perf\.sync \{device = (\d+)\}')
END = re.compile(r'^\s*\}\s*$')
FIELD = re.compile(r'(\w+) = (array<i64: [\d, ]*>|"[^"]*"|[\d.e+-]+)')


def fields(text):
    out = {}
    for key, value in FIELD.findall(text):
        if value.startswith("array"):
            out[key] = [int(x) for x in value[len("array<i64:"):-1].split(",") if x.strip()]
        elif value.startswith('"'):
            out[key] = value[1:-1]
        else:
            out[key] = float(value)
    return out


def roofline_us(flops, nbytes):
    return max(flops / PEAK_FLOPS, nbytes / PEAK_BYTES) * 1e6


def latency_us(kind, f):
    if kind == "gemm":
        m, n, k = f["m"], f["n"], f["k"]
        batch = f.get("batch", 1)
        return roofline_us(2 * batch * m * n * k, 4 * batch * (m * k + k * n + m * n))
    if kind == "elementwise":
        e = f["elements"]
        return roofline_us(e, 4 * e * (f.get("inputs", 1) + 1))
    if kind in ("layernorm", "softmax", "reduce"):
        e = f["rows"] * f["cols"]
        return roofline_us(5 * e, 8 * e)
    if kind == "all_reduce":
        n = len(f["group"])
        return COLLECTIVE_LATENCY_US + 2 * (n - 1) / n * f["bytes"] / LINK_BYTES * 1e6
    raise ValueError("baseline.py: kernel kind %s is not priced" % kind)


def estimate(path):
    host = {}            # device -> host clock
    stream_ready = {}    # (device, stream) -> when the stream drains
    value_ready = {}     # SSA value -> when the device work producing it ends
    kernels = 0
    op = None            # the open perf.op: [result, device, deps ready, end]
    with open(path) as f:
        for line in f:
            m = OP.match(line)
            if m:
                result, _, operands = m.groups()
                device = 0
                clock = host.get(device, 0.0) + T1
                ready = 0.0
                if operands:
                    for name in operands.split(","):
                        ready = max(ready, value_ready.get(name.strip(), 0.0))
                host[device] = clock
                op = [result, device, ready, ready]
                if line.rstrip().endswith("{"):
                    continue
                host[device] += T3
                if result:
                    value_ready[result] = ready
                op = None
                continue
            if op is not None:
                m = KERNEL.match(line)
                if m:
                    kind, f = m.group(1), fields(m.group(2))
                    device = int(f.get("device", op[1]))
                    stream = int(f.get("stream", 0))
                    host[device] = host.get(device, 0.0) + T4
                    start = max(host[device], op[2])
                    if "group" in f:
                        for d in f["group"]:
                            start = max(start, stream_ready.get((d, stream), 0.0))
                    else:
                        start = max(start, stream_ready.get((device, stream), -GAP) + GAP)
                    end = start + latency_us(kind, f)
                    for d in f.get("group", [device]):
                        stream_ready[(d, stream)] = end
                    op[3] = max(op[3], end)
                    kernels += 1
                    continue
                if END.match(line):
                    host[op[1]] += T3
                    if op[0]:
                        value_ready[op[0]] = op[3]
                    op = None
                    continue
            m = SYNC.match(line)
            if m:
                device = int(m.group(1))
                drained = max([t for (d, _), t in stream_ready.items() if d == device],
                              default=0.0)
                host[device] = max(host.get(device, 0.0) + T1, drained) + T5
    end = max(list(host.values()) + list(stream_ready.values()) + [0.0])
    return end, kernels


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: baseline.py step.mlir")
    end, kernels = estimate(sys.argv[1])
    print("step %.3f us, %d kernels" % (end, kernels))


if __name__ == "__main__":
    main()
