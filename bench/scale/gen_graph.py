#!/usr/bin/env python3
"""Writes a synthetic perf.graph with N kernels for the scaling benchmark.

The graph is a chain of residual blocks: conv -> batchnorm -> relu ->
gemm -> add (joining the block input), one kernel per op, so every kernel
kind the estimate prices and every dependency shape (chain, fork, join)
occurs. Usage: gen_graph.py N > graph.mlir
"""
import sys


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit("usage: gen_graph.py N (number of kernels, N >= 1)")
    n = int(sys.argv[1])
    t = "tensor<32x64x28x28xf32>"
    out = sys.stdout
    out.write('perf.graph @step attributes {target = #perf.gpu<"A100">} {\n')
    out.write(f'  %v0 = perf.op "input" : () -> {t}\n')
    kernels = [
        ("aten::conv2d", 'perf.conv2d {n = 32, c = 64, h = 28, w = 28, k = 64, '
                         'r = 3, s = 3, pad = array<i64: 1, 1>}'),
        ("aten::batch_norm", "perf.batchnorm {elements = 1605632, channels = 64}"),
        ("aten::relu", 'perf.elementwise {elements = 1605632, fn = "relu"}'),
        ("aten::matmul", "perf.gemm {m = 25088, n = 64, k = 64}"),
        ("aten::add", 'perf.elementwise {elements = 1605632, inputs = 2, fn = "add"}'),
    ]
    block_input = 0
    last = 0
    for i in range(1, n + 1):
        name, kernel = kernels[(i - 1) % len(kernels)]
        if name == "aten::add":
            operands, types = f"%v{last}, %v{block_input}", f"{t}, {t}"
        else:
            operands, types = f"%v{last}", t
        out.write(f'  %v{i} = perf.op "{name}"({operands}) : ({types}) -> {t} {{\n'
                  f"    {kernel}\n  }}\n")
        last = i
        if name == "aten::add":
            block_input = i
    out.write("}\n")


if __name__ == "__main__":
    main()
