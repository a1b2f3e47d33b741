#!/usr/bin/env python3
"""bench/speed: perf-opt, the C++ API and a plain Python baseline, side by side.

For each size (kernels and collectives per step), generates the step of
gen_step.py and times, in the same run and on the same file:
  - perf-opt --estimate on the text IR,
  - perf-opt --estimate on the same step as MLIR bytecode, with the text's
    source locations and without them (--strip-debuginfo),
  - perf-speed-inmemory (the step built in memory through the C++ API),
  - baseline.py (the seed's critical path written plainly in Python),
all pricing kernels with the roofline, plus perf-opt's default (learned)
model stack on a 2k-kernel step. Writes wall seconds, peak RSS, time and
memory per kernel and the ratio to the baseline into docs/performance.md
(between the bench/speed markers), with the machine named.

    bench/speed/run.py [--build build] [--sizes 10000,100000,1000000]
                       [--out docs/performance.md | -]

A benchmark, not a test: wall times on a shared machine are noisy (the load
average is recorded with the table).
"""
import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from doc_section import write_section  # noqa: E402

BEGIN = "<!-- bench/speed begin -->"
END = "<!-- bench/speed end -->"


def timed(cmd, log):
    """Runs cmd under GNU time; returns (wall s, peak RSS MiB, stdout)."""
    with open(log, "w") as err:
        out = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=subprocess.PIPE,
                             stderr=err, text=True)
    lines = open(log).read().strip().splitlines()
    if out.returncode != 0:
        sys.exit("error: %s failed (exit %d):\n%s" % (" ".join(cmd), out.returncode,
                                                        "\n".join(lines[-20:])))
    wall, rss = lines[-1].split()
    return float(wall), float(rss) / 1024, out.stdout


def machine():
    model = "unknown CPU"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem = 0
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal"):
            mem = int(line.split()[1]) / 1024 / 1024
    return "%s, %d cores, %.0f GiB, %s" % (model, os.cpu_count(), mem, platform.platform())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--sizes", default="10000,100000,1000000",
                    help="comma-separated kernel counts (10000000 takes minutes and ~12 GB)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"),
                    help="Markdown file to update, or - to print")
    args = ap.parse_args()
    opt = os.path.join(args.build, "bin", "perf-opt")
    inmemory = os.path.join(args.build, "bin", "perf-speed-inmemory")
    for tool in (opt, inmemory):
        if not os.access(tool, os.X_OK):
            sys.exit("error: %s is not built (ninja -C %s %s)" % (tool, args.build,
                                                                  os.path.basename(tool)))
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
        if any(s < 1 for s in sizes):
            raise ValueError
    except ValueError:
        sys.exit("error: --sizes takes positive kernel counts, e.g. 10000,100000")

    started = time.time()
    load = open("/proc/loadavg").read().split()[:3]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        log = os.path.join(work, "log")

        def step_file(n):
            text = os.path.join(work, "step%d.mlir" % n)
            with open(text, "w") as f:
                subprocess.run([sys.executable, os.path.join(HERE, "gen_step.py"), str(n)],
                               stdout=f, check=True)
            return text

        for n in sizes:
            print("bench/speed: %d kernels" % n, file=sys.stderr)
            text = step_file(n)
            bytecode = text + "bc"
            bare = text + ".noloc.mlirbc"
            subprocess.run([opt, text, "--emit-bytecode", "-o", bytecode], check=True)
            subprocess.run([opt, text, "--strip-debuginfo", "--emit-bytecode", "-o", bare],
                           check=True)
            estimate = ["--estimate", "--estimate-models=roofline"]
            results = {
                "baseline.py": timed([sys.executable, os.path.join(HERE, "baseline.py"), text],
                                     log),
                "perf-opt, text": timed([opt, text] + estimate, log),
                "perf-opt, bytecode": timed([opt, bytecode] + estimate, log),
                "perf-opt, bytecode without locations": timed([opt, bare] + estimate, log),
                "C++ API, in memory": timed([inmemory, str(n)], log),
            }
            base = results["baseline.py"][0]
            for tool, (wall, rss, _) in results.items():
                rows.append((n, tool, wall, rss, base))
            os.remove(text)
            os.remove(bytecode)
            os.remove(bare)

        # The default (learned) stack on a 2k-kernel step, text and bytecode.
        text = step_file(2000)
        bytecode = text + "bc"
        subprocess.run([opt, text, "--emit-bytecode", "-o", bytecode], check=True)
        base, rss, _ = timed([sys.executable, os.path.join(HERE, "baseline.py"), text], log)
        rows.append((2000, "baseline.py", base, rss, base))
        for tool, f in (("perf-opt, text, default stack", text),
                        ("perf-opt, bytecode, default stack", bytecode)):
            wall, rss, _ = timed([opt, f, "--estimate"], log)
            rows.append((2000, tool, wall, rss, base))

    lines = [BEGIN, "",
             "Generated by `bench/speed/run.py` (do not edit by hand) on %s; load average "
             "%s at the start. Wall seconds and peak RSS of the whole process (start, "
             "parse, passes, report, exit) under GNU time; the roofline prices kernels "
             "except in the *default stack* rows. *vs baseline*: baseline wall time "
             "over this row's (above 1: faster than the baseline)." % (machine(), " ".join(load)),
             "",
             "| kernels | tool | wall s | peak RSS MiB | us per kernel | KiB per kernel "
             "| vs baseline |",
             "|---|---|---|---|---|---|---|"]
    for n, tool, wall, rss, base in rows:
        lines.append("| %d | %s | %.2f | %.0f | %.2f | %.2f | %.1fx |" % (
            n, tool, wall, rss, wall / n * 1e6, rss * 1024 / n, base / max(wall, 1e-3)))
    lines += ["", END, ""]
    write_section(args.out, BEGIN, END, "\n".join(lines), time.time() - started)


if __name__ == "__main__":
    main()
