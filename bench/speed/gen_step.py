#!/usr/bin/env python3
"""Writes a synthetic training-like step of N kernels for bench/speed.

The step repeats a block that has every shape of work the critical path
walks: a host op without device work (a view), GEMMs on two streams of
device 0 (the second branch waits for nothing but the host, the join waits
across streams), element-wise, layer-norm and softmax kernels, and every
fourth block an all_reduce over devices 0 and 1 on a communication stream
(it starts when both devices' streams are ready). The step ends with a
host synchronization.

    gen_step.py N > step.mlir

N counts device work (kernels and collectives); the block is cut where N
is reached, so the file has exactly N of them.
"""
import sys

TENSOR = "tensor<4096x1024xf32>"
ROWS, COLS = 4096, 1024
ELEMENTS = ROWS * COLS


def block(out, value, kernels_left, index):
    """Writes one block reading %v{value}; returns (last value, kernels)."""
    t = TENSOR
    v = value
    written = 0

    def op(name, operands, kernel):
        nonlocal v, written
        args = ", ".join("%%v%d" % o for o in operands)
        types = ", ".join([t] * len(operands))
        v += 1
        if kernel is None:
            out.write('  %%v%d = perf.op "%s"(%s) : (%s) -> %s\n' % (v, name, args, types, t))
        else:
            out.write('  %%v%d = perf.op "%s"(%s) : (%s) -> %s {\n    %s\n  }\n'
                      % (v, name, args, types, t, kernel))
            written += 1
        return v

    x = op("aten::view", [value], None)
    steps = [
        ("aten::linear", lambda: [x], "perf.gemm {m = %d, n = %d, k = %d}" % (ROWS, COLS, COLS)),
        ("aten::gelu", lambda: [v],
         'perf.elementwise {elements = %d, fn = "gelu"}' % ELEMENTS),
        ("aten::linear", lambda: [x],
         "perf.gemm {m = %d, n = %d, k = %d, stream = 1}" % (ROWS, COLS, COLS)),
        ("aten::add", lambda: [v - 1, v],
         'perf.elementwise {elements = %d, inputs = 2, fn = "add"}' % ELEMENTS),
        ("aten::layer_norm", lambda: [v], "perf.layernorm {rows = %d, cols = %d}" % (ROWS, COLS)),
        ("aten::softmax", lambda: [v], "perf.softmax {rows = %d, cols = %d}" % (ROWS, COLS)),
    ]
    for name, operands, kernel in steps:
        if written == kernels_left:
            break
        op(name, operands(), kernel)
    if index % 4 == 3 and written < kernels_left:
        out.write('  perf.op "nccl:all_reduce"(%%v%d) : (%s) -> () {\n'
                  '    perf.all_reduce {bytes = %d, group = array<i64: 0, 1>, stream = 2}\n  }\n'
                  % (v, t, ELEMENTS * 4))
        written += 1
    return v, written


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit("usage: gen_step.py N (kernels and collectives, N >= 1)")
    n = int(sys.argv[1])
    out = sys.stdout
    out.write('perf.graph @step attributes {target = #perf.gpu<"A100">, '
              'phase = "training"} {\n')
    out.write('  %%v0 = perf.op "input" : () -> %s\n' % TENSOR)
    value, written, index = 0, 0, 0
    while written < n:
        value, w = block(out, value, n - written, index)
        written += w
        index += 1
    out.write("  perf.sync {device = 0}\n}\n")


if __name__ == "__main__":
    main()
