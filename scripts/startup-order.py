#!/usr/bin/env python3
"""Writes cmake/startup.order: the functions a small estimate runs.

    scripts/startup-order.py [--build build] [--out cmake/startup.order]
    scripts/startup-order.py --check BINARY [--order cmake/startup.order]

The fast-start link (cmake/FastStart.cmake) hands this list to the linker
(lld's --symbol-ordering-file), which places these functions first in the
binary's code, one after another. A small estimate's run is mostly its
start, and on the virtual machines perf is measured on, each page of code
faulted in costs tens of microseconds: the code a run touches, scattered
over a 10 MB text segment, faulted in 59 windows of 64 KB; packed
together, in 18 (a 10k-kernel repeat's estimate, docs/performance.md).

Runs each command below under valgrind's callgrind (about a second each)
and lists, in the order first seen, every function that ran and that
perf-opt or perf-speed-inmemory defines. Names the build no longer has are
skipped by the linker, so a stale list only orders less: run this again
after large changes (the startup-order test says when too few names are
left).

With --check, reads a linked binary back instead (the startup-order test):
passes when most of the listed functions are still in it (else the list is
stale) and when those it defines lie packed together, as lld places them:
within twice their total size. Linked in the default order they spread over
the whole text segment.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def defined_functions(binary):
    """The function symbols `binary` defines, as (name, address, size): a
    local function's name may come more than once."""
    out = subprocess.run(["nm", "--defined-only", "--print-size", binary],
                         check=True, capture_output=True, text=True).stdout
    functions = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            functions.append((parts[3], int(parts[0], 16), int(parts[1], 16)))
    return functions


def check(binary, order_file):
    """Exits with a message unless `binary` was linked in `order_file`'s
    order."""
    with open(order_file) as f:
        listed = {line.strip() for line in f if line.strip()}
    # The listed functions the binary defines, one entry per address
    # (aliases name the same code).
    placed, names = {}, set()
    for name, address, size in defined_functions(binary):
        if name in listed:
            placed[address] = size
            names.add(name)
    share = len(names) / max(1, len(listed))
    print(f"{len(names)} of the {len(listed)} listed functions are in "
          f"{binary} ({100 * share:.0f}%)")
    if share < 0.5 or not placed:
        sys.exit("the startup order is stale: run scripts/startup-order.py "
                 "and commit cmake/startup.order")
    size = sum(placed.values())
    span = max(a + s for a, s in placed.items()) - min(placed)
    print(f"they take {size} bytes and span {span} bytes")
    if span > 2 * size:
        sys.exit("the listed functions are not packed together: the binary "
                 "was not linked with --symbol-ordering-file")


def functions_run(command, workdir):
    """The functions `command` runs, in callgrind's order (mangled)."""
    profile = os.path.join(workdir, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no",
                    "--callgrind-out-file=" + profile] + command,
                   check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    names = {}
    with open(profile) as f:
        for line in f:
            m = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if m and m.group(2) and m.group(1) not in names:
                names[m.group(1)] = m.group(2)
    os.remove(profile)
    return list(names.values())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out",
                        default=os.path.join(ROOT, "cmake", "startup.order"))
    parser.add_argument("--check", metavar="BINARY",
                        help="check BINARY's layout instead of writing")
    parser.add_argument("--order",
                        default=os.path.join(ROOT, "cmake", "startup.order"),
                        help="the order file --check reads")
    args = parser.parse_args()
    if args.check:
        check(args.check, args.order)
        return
    if not shutil.which("valgrind"):
        sys.exit("startup-order.py: needs valgrind (apt-get install valgrind)")
    opt = os.path.join(args.build, "bin", "perf-opt")
    inmemory = os.path.join(args.build, "bin", "perf-speed-inmemory")
    for binary in (opt, inmemory):
        if not os.access(binary, os.X_OK):
            sys.exit(f"startup-order.py: {binary} is not built")
    gen_step = os.path.join(ROOT, "bench", "speed", "gen_step.py")
    defined = {name for binary in (opt, inmemory)
               for name, _, _ in defined_functions(binary)}

    with tempfile.TemporaryDirectory() as work:
        repeat = os.path.join(work, "repeat.mlir")
        written = os.path.join(work, "written.mlir")
        with open(repeat, "w") as f:
            subprocess.run([sys.executable, gen_step, "--repeat", "10000"],
                           stdout=f, check=True)
        with open(written, "w") as f:
            subprocess.run([sys.executable, gen_step, "2000"], stdout=f,
                           check=True)
        bytecode = os.path.join(work, "written.mlirbc")
        subprocess.run([opt, written, "--strip-debuginfo", "--emit-bytecode",
                        "-o", bytecode], check=True)
        roofline = "--estimate=models=roofline"
        commands = [
            [opt, "--version"],
            [opt, repeat, roofline],
            [opt, bytecode, roofline],
            [opt, written, roofline + " format=json"],
            [opt, written, "--estimate"],
            [opt, "--perf-fuse-embeddings", "--estimate",
             os.path.join(ROOT, "examples", "dlrm_step.mlir")],
            [inmemory, "10000"],
        ]
        order, seen = [], set()
        for command in commands:
            print("startup-order.py: " + " ".join(
                os.path.basename(c) for c in command), file=sys.stderr)
            for name in functions_run(command, work):
                if name in defined and name not in seen:
                    seen.add(name)
                    order.append(name)
    with open(args.out, "w") as f:
        f.write("\n".join(order) + "\n")
    print(f"startup-order.py: {len(order)} functions -> {args.out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
