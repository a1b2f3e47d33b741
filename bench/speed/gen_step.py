#!/usr/bin/env python3
"""Writes a synthetic training-like step of N kernels for bench/speed.

The step repeats a block that has every shape of work the critical path
walks: a host op without device work (a view), GEMMs on two streams of
device 0 (the second branch waits for nothing but the host, the join waits
across streams), element-wise, layer-norm and softmax kernels, and every
fourth block an all_reduce over devices 0 and 1 on a communication stream
(it starts when both devices' streams are ready). The step ends with a
host synchronization.

    gen_step.py [--repeat] N > step.mlir

N counts device work (kernels and collectives); the block is cut where N
is reached, so the file has exactly N of them. With --repeat, the same step
is written with perf.repeat: the four blocks that repeat (25 kernels,
one all_reduce) once, in a repeat of N // 25 copies, then the rest written
out; the graph it stands for is the one without --repeat, op for op.
"""
import sys

TENSOR = "tensor<4096x1024xf32>"
ROWS, COLS = 4096, 1024
ELEMENTS = ROWS * COLS


GROUP_KERNELS = 25  # four blocks: 4 x 6 kernels and one all_reduce


def operand_name(value):
    """An operand: %v{value}, or a value already named (a string)."""
    return value if isinstance(value, str) else "%%v%d" % value


def block(out, value, kernels_left, index, counter=None):
    """Writes one block reading `value` (a number or a name); its results
    are numbered from `counter` (default: value). Returns (last value
    number, kernels)."""
    t = TENSOR
    v = value if counter is None else counter
    written = 0

    def op(name_, operands, kernel):
        nonlocal v, written
        args = ", ".join(operand_name(o) for o in operands)
        types = ", ".join([t] * len(operands))
        v += 1
        if kernel is None:
            out.write('  %%v%d = perf.op "%s"(%s) : (%s) -> %s\n' % (v, name_, args, types, t))
        else:
            out.write('  %%v%d = perf.op "%s"(%s) : (%s) -> %s {\n    %s\n  }\n'
                      % (v, name_, args, types, t, kernel))
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
    args = sys.argv[1:]
    repeat = args[:1] == ["--repeat"]
    if repeat:
        args = args[1:]
    if len(args) != 1 or not args[0].isdigit() or int(args[0]) < 1:
        sys.exit("usage: gen_step.py [--repeat] N (kernels and collectives, N >= 1)")
    n = int(args[0])
    out = sys.stdout
    out.write('perf.graph @step attributes {target = #perf.gpu<"A100">, '
              'phase = "training"} {\n')
    out.write('  %%v0 = perf.op "input" : () -> %s\n' % TENSOR)
    value, written, index = 0, 0, 0
    copies = n // GROUP_KERNELS if repeat else 0
    if copies:
        # One group of four blocks, read from the body's argument %v1.
        out.write('  %%r = perf.repeat %d (%%v0) : (%s) -> %s {\n  ^bb0(%%v1: %s):\n'
                  % (copies, TENSOR, TENSOR, TENSOR))
        value = 1
        for i in range(4):
            value, w = block(out, value, GROUP_KERNELS, i)
            written += w
        out.write("  perf.yield %%v%d : %s\n  }\n" % (value, TENSOR))
        written *= copies
        if written < n:
            value, w = block(out, "%r", n - written, 0, counter=value)
            written += w
            index = 1
    while written < n:
        value, w = block(out, value, n - written, index)
        written += w
        index += 1
    out.write("  perf.sync {device = 0}\n}\n")


if __name__ == "__main__":
    main()
