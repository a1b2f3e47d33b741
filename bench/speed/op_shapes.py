#!/usr/bin/env python3
"""bench/speed/op_shapes.py: what MLIR's reader and verifier cost per kernel,
by how the IR holds a kernel.

A step written out is read by MLIR before any pass of perf-opt runs. This
times that read alone (`perf-opt --mlir-timing`, its "Parser" phase, which
includes the verifier) for N host ops written three ways:

  work list   today's form: each perf.op lists its kernel in braces, read
              as a #perf.work attribute in its work list (identical
              kernels are one attribute);
  attributes  each perf.op carries the same kernel fields as attributes and
              has no body (what a kernel held as an attribute of its op
              would cost to read);
  bare        each perf.op without a body or kernel fields (the floor: one
              op per kernel).

Each is read as text and as bytecode without locations, with the verifier
and without it (`--mlir-very-unsafe-disable-verifier-on-parsing`, a
measurement only). Every read is the median of three runs.

    op_shapes.py [--build build] [--ops 1000000]

prints a Markdown table (seconds); docs/performance.md quotes it.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

TENSOR = "tensor<4096x1024xf32>"
# The kernels of bench/speed/gen_step.py's block, in its order.
KERNELS = [
    ("aten::linear", "gemm", [("m", 4096), ("n", 1024), ("k", 1024)]),
    ("aten::gelu", "elementwise", [("elements", 4194304)]),
    ("aten::add", "elementwise", [("elements", 4194304), ("inputs", 2)]),
    ("aten::layer_norm", "layernorm", [("rows", 4096), ("cols", 1024)]),
    ("aten::softmax", "softmax", [("rows", 4096), ("cols", 1024)]),
]
SHAPES = ("work list", "attributes", "bare")


def write_graph(path, shape, ops):
    """N ops in a chain, each reading the one before, in `shape`."""
    with open(path, "w") as out:
        out.write('perf.graph @step attributes {target = #perf.gpu<"A100">} {\n')
        out.write('  %%v0 = perf.op "input" : () -> %s\n' % TENSOR)
        for i in range(1, ops + 1):
            name, kind, fields = KERNELS[i % len(KERNELS)]
            head = '  %%v%d = perf.op "%s"(%%v%d)' % (i, name, i - 1)
            signature = " : (%s) -> %s" % (TENSOR, TENSOR)
            if shape == "work list":
                body = ", ".join("%s = %d" % f for f in fields)
                out.write("%s%s {\n    perf.%s {%s}\n  }\n" % (head, signature, kind, body))
            elif shape == "attributes":
                attrs = ", ".join(['kernel.kind = "%s"' % kind] +
                                  ["kernel.%s = %d : i64" % f for f in fields])
                out.write("%s {%s}%s\n" % (head, attrs, signature))
            else:
                out.write(head + signature + "\n")
        out.write("}\n")


PARSER = re.compile(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+Parser\s*$", re.M)


def parse_seconds(opt, path, verify):
    """The median over three runs of perf-opt's parse phase on `path`."""
    cmd = [opt, path, "--mlir-timing", "--emit-bytecode", "-o", os.devnull]
    if not verify:
        cmd.append("--mlir-very-unsafe-disable-verifier-on-parsing")
    runs = []
    for _ in range(3):
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit("error: %s failed (exit %d):\n%s"
                     % (" ".join(cmd), done.returncode, done.stderr[-2000:]))
        match = PARSER.search(done.stderr)
        if not match:
            sys.exit("error: no Parser phase in the -mlir-timing report of %s" % path)
        runs.append(float(match.group(1)))
    return statistics.median(runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="the build directory")
    ap.add_argument("--ops", type=int, default=1000000, help="host ops per graph")
    args = ap.parse_args()
    if args.ops < 1:
        sys.exit("error: --ops takes a positive count")
    opt = os.path.join(args.build, "bin", "perf-opt")
    if not os.access(opt, os.X_OK):
        sys.exit("error: %s is not built (ninja -C %s perf-opt)" % (opt, args.build))

    rows = []
    with tempfile.TemporaryDirectory() as work:
        for shape in SHAPES:
            print("op_shapes: %s, %d ops" % (shape, args.ops), file=sys.stderr)
            text = os.path.join(work, shape.replace(" ", "-") + ".mlir")
            write_graph(text, shape, args.ops)
            bytecode = os.path.join(work, shape.replace(" ", "-") + ".mlirbc")
            subprocess.run([opt, text, "--strip-debuginfo", "--emit-bytecode",
                            "-o", bytecode], check=True)
            rows.append((shape,
                         parse_seconds(opt, text, True),
                         parse_seconds(opt, bytecode, True),
                         parse_seconds(opt, bytecode, False),
                         os.path.getsize(bytecode) / 2**20))
            os.remove(text)

    print("| %d ops | text, verified | bytecode, verified | bytecode, not verified "
          "| bytecode MiB |" % args.ops)
    print("| --- | ---: | ---: | ---: | ---: |")
    for shape, text_s, bc_s, bc_unverified_s, size in rows:
        print("| %s | %.2f | %.2f | %.2f | %.1f |" % (shape, text_s, bc_s, bc_unverified_s, size))


if __name__ == "__main__":
    main()
