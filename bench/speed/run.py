#!/usr/bin/env python3
"""bench/speed: perf-opt, the C++ API and a plain Python baseline, side by side.

For each size (kernels and collectives per step), generates the step of
gen_step.py and times, in the same run and on the same file:
  - perf-opt --estimate on the text IR,
  - perf-opt --estimate on the same step as MLIR bytecode, with the text's
    source locations and without them (--strip-debuginfo),
  - perf-opt --estimate on the same step written with perf.repeat
    (gen_step.py --repeat), text and bytecode; its report must be the
    unrolled step's,
  - perf-speed-inmemory (the step built in memory through the C++ API),
  - baseline.py (the seed's critical path written plainly in Python),
all pricing kernels with the roofline, plus perf-opt's default (learned)
model stack on a 2k-kernel step. Writes wall seconds, peak RSS, time and
memory per kernel and the ratio to the baseline into docs/performance.md
(between the bench/speed markers), with the machine named, and a log-log
plot of wall time against kernels (docs/images/speed-loglog.svg).

    bench/speed/run.py [--build build] [--sizes 10000,100000,1000000]
                       [--out docs/performance.md | -] [--plot FILE.svg | -]
    bench/speed/run.py --replot    redraws the plot from the table in --out

A benchmark, not a test: wall times on a shared machine are noisy (the load
average is recorded with the table).
"""
import argparse
import os
import platform
import resource
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from doc_section import write_section  # noqa: E402

# Measures the peak RSS of a run smaller than this Python (timed_together).
GNU_TIME = "/usr/bin/time"

BEGIN = "<!-- bench/speed begin -->"
END = "<!-- bench/speed end -->"


def timed_together(cmds, log):
    """Times each (name, cmd) of `cmds`; returns {name: (wall s, peak RSS
    MiB, stdout of the first run)}. Each runs once, in order; then a run of
    ten seconds or more stands as it is, one of a second or more is run
    twice more back to back and the median of three kept (a run after one
    that took gigabytes waits while the system gives them back, and the
    first run after a step's files were written while it reclaims their
    page cache: a 10M-kernel repeat run timed 6.2 s first and 2.8 s
    after), and the runs under a second are repeated in rounds, each round
    running every one of them once in order, until each has twenty-one runs
    (under 0.1 s) or five, the median kept. The machine's other work moves
    a 10 ms run by tens of percent from one minute to the next (a 100k-kernel
    perf-opt run took 57-64 ms in one minute and 46-49 ms a few minutes
    later, while the baseline moved 5%): in rounds, the baseline and the
    runs it is compared with see the same minutes."""
    first = [(name, cmd, timed_once(cmd, log)) for name, cmd in cmds]
    runs = {}
    want = {}
    for name, cmd, (wall, rss, _) in first:
        runs[name] = [(wall, rss)]
        if wall >= 10.0:
            want[name] = 1
        elif wall >= 1.0:
            runs[name] += [timed_once(cmd, log)[:2] for _ in range(2)]
            want[name] = 3
        else:
            want[name] = 21 if wall < 0.1 else 5
    while any(len(runs[name]) < want[name] for name, _, _ in first):
        for name, cmd, _ in first:
            if len(runs[name]) < want[name]:
                runs[name].append(timed_once(cmd, log)[:2])
    results = {}
    for name, cmd, (_, _, out) in first:
        walls = sorted(wall for wall, _ in runs[name])
        rss = max(rss for _, rss in runs[name])
        if rss <= launcher_peak_mib():
            rss = peak_rss_under_gnu_time(cmd, log)
        results[name] = (walls[len(walls) // 2], rss, out)
    return results


def launcher_peak_mib():
    """This Python's own peak RSS in MiB. A child's peak as wait4 reports it
    is at least its parent's resident set when it was forked: Linux keeps
    the larger of the peak of the memory the child replaced at exec (this
    Python's pages, copied by fork) and the program's own. A figure at or
    below this one may be this Python's, not the program's."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def peak_rss_under_gnu_time(cmd, log):
    """The peak RSS in MiB of one more run of `cmd`, forked by GNU time (a
    process of half a MiB, so the floor above is its size, not this
    Python's)."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as report:
        with open(log, "w") as err:
            code = subprocess.call([GNU_TIME, "-f", "%M", "-o", report.name] + cmd,
                                   stdout=subprocess.DEVNULL, stderr=err)
        if code != 0:
            exit_failed([GNU_TIME] + cmd, code, log)
        return int(report.read().split()[-1]) / 1024


def timed_once(cmd, log):
    """One run: wall time from the monotonic clock around the child's life,
    peak RSS from the kernel's accounting of that child (wait4), stderr to
    `log`."""
    with open(log, "w") as err:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
        out = child.stdout.read()
        child.stdout.close()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    child.returncode = code  # reaped here, not by Popen
    if code != 0:
        exit_failed(cmd, code, log)
    return wall, usage.ru_maxrss / 1024, out


def exit_failed(cmd, code, log):
    """Stops the benchmark on a run of `cmd` that exited with `code`, with
    the last lines of its stderr (`log`)."""
    lines = open(log).read().strip().splitlines()
    sys.exit("error: %s failed (exit %d):\n%s" % (" ".join(cmd), code,
                                                    "\n".join(lines[-20:])))


def same_report(a, b, rel=1e-9):
    """Whether two text reports say the same, numbers within `rel`."""
    number = re.compile(r"-?\d+(?:\.\d+)?")
    la, lb = a.splitlines(), b.splitlines()
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        if number.sub("#", x) != number.sub("#", y):
            return False
        for p, q in zip(number.findall(x), number.findall(y)):
            p, q = float(p), float(q)
            if abs(p - q) > rel * max(abs(p), abs(q)) + 1e-3:
                return False
    return True


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


def loglog_svg(rows, path):
    """Writes a log-log plot (plain SVG) of wall seconds per kernel count,
    one line per tool, from table rows (kernels, tool, wall s, ...)."""
    import math
    series = {}
    for n, tool, wall, _rss, _base in rows:
        if "default stack" in tool or n < 10000:
            continue
        series.setdefault(tool, []).append((n, max(wall, 1e-3)))
    if not series:
        return
    xs = [n for points in series.values() for n, _ in points]
    ys = [w for points in series.values() for _, w in points]
    x0, x1 = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    x1, y1 = max(x1, x0 + 1), max(y1, y0 + 1)
    width, height, left, bottom, top, right = 720, 420, 70, 50, 20, 250

    def px(n):
        return left + (math.log10(n) - x0) / (x1 - x0) * (width - left - right)

    def py(w):
        return height - bottom - (math.log10(w) - y0) / (y1 - y0) * (height - bottom - top)

    colors = ["#1f77b4", "#d62728", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b"]
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    for e in range(x0, x1 + 1):
        x = px(10 ** e)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   % (x, top, x, height - bottom))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">1e%d</text>'
                   % (x, height - bottom + 16, e))
    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (left, y, width - right, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g s</text>'
                   % (left - 6, y + 4, 10.0 ** e))
    out.append('<text x="%d" y="%d" text-anchor="middle">kernels per step</text>'
               % ((left + width - right) // 2, height - 12))
    for i, (tool, points) in enumerate(sorted(series.items())):
        color = colors[i % len(colors)]
        points.sort()
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (
            color, " ".join("%.1f,%.1f" % (px(n), py(w)) for n, w in points)))
        for n, w in points:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (px(n), py(w), color))
        y = top + 14 + 18 * i
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                   % (width - right + 12, y - 4, width - right + 32, y - 4, color))
        out.append('<text x="%d" y="%d">%s</text>' % (width - right + 38, y, tool))
    out.append("</svg>\n")
    with open(path, "w") as f:
        f.write("\n".join(out))


def rows_from_doc(path):
    """The table rows a previous run wrote into `path`."""
    rows, base = [], {}
    text = open(path).read()
    if BEGIN not in text:
        sys.exit("error: %s has no bench/speed table to plot" % path)
    for line in text.split(BEGIN, 1)[1].split(END, 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0].isdigit():
            n, tool, wall, rss = int(cells[0]), cells[1], float(cells[2]), float(cells[3])
            if tool == "baseline.py":
                base[n] = wall
            rows.append((n, tool, wall, rss, base.get(n, wall)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--sizes", default="10000,100000,1000000",
                    help="comma-separated kernel counts (10000000 takes minutes and ~12 GB)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"),
                    help="Markdown file to update, or - to print")
    ap.add_argument("--plot", default=os.path.join(ROOT, "docs", "images", "speed-loglog.svg"),
                    help="log-log plot of wall time against kernels (SVG), or - for none")
    ap.add_argument("--replot", action="store_true",
                    help="only redraw --plot from the table already in --out")
    args = ap.parse_args()
    if args.replot:
        loglog_svg(rows_from_doc(args.out), args.plot)
        return
    opt = os.path.join(args.build, "bin", "perf-opt")
    inmemory = os.path.join(args.build, "bin", "perf-speed-inmemory")
    if not os.access(GNU_TIME, os.X_OK):
        sys.exit("error: %s (GNU time) is not installed: it measures the peak RSS of "
                 "the runs smaller than this Python (apt-get install time)" % GNU_TIME)
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

        def step_file(n, repeat=False):
            text = os.path.join(work, "step%d%s.mlir" % (n, ".repeat" if repeat else ""))
            with open(text, "w") as f:
                subprocess.run([sys.executable, os.path.join(HERE, "gen_step.py")]
                               + (["--repeat"] if repeat else []) + [str(n)],
                               stdout=f, check=True)
            return text

        def to_bytecode(text, suffix, *passes):
            """perf-opt's bytecode of the step `text`, after `passes`."""
            out = os.path.splitext(text)[0] + suffix
            subprocess.run([opt, text, *passes, "--emit-bytecode", "-o", out], check=True)
            return out

        for n in sizes:
            print("bench/speed: %d kernels" % n, file=sys.stderr)
            estimate = ["--estimate=models=roofline"]
            # The same step with its repeating blocks written once in a
            # perf.repeat (gen_step.py --repeat), and written out.
            repeated = step_file(n, repeat=True)
            repeated_bc = to_bytecode(repeated, ".mlirbc")
            text = step_file(n)
            bytecode = to_bytecode(text, ".mlirbc")
            bare = to_bytecode(text, ".noloc.mlirbc", "--strip-debuginfo")
            # The small runs first: a run right after one that took gigabytes
            # waits on the system giving them back (a 10M-kernel repeat run
            # took 9.8 s after the unrolled runs and 6.0 s on its own).
            results = timed_together([
                ("perf-opt, text with perf.repeat", [opt, repeated] + estimate),
                ("perf-opt, bytecode with perf.repeat", [opt, repeated_bc] + estimate),
                ("C++ API, in memory", [inmemory, str(n)]),
                ("baseline.py", [sys.executable, os.path.join(HERE, "baseline.py"), text]),
                ("perf-opt, text", [opt, text] + estimate),
                ("perf-opt, bytecode", [opt, bytecode] + estimate),
                ("perf-opt, bytecode without locations", [opt, bare] + estimate),
            ], log)
            results = {tool: results[tool] for tool in (
                "baseline.py", "perf-opt, text", "perf-opt, bytecode",
                "perf-opt, bytecode without locations", "C++ API, in memory",
                "perf-opt, text with perf.repeat", "perf-opt, bytecode with perf.repeat")}
            # The repeat must stand for the same step: the same report, up
            # to the rounding of sums over many kernels (a repeated op's time
            # is added once per copy in another order).
            if not same_report(results["perf-opt, bytecode with perf.repeat"][2],
                               results["perf-opt, bytecode"][2]):
                sys.exit("error: the step with perf.repeat is reported differently "
                         "from the unrolled one (%d kernels)" % n)
            base = results["baseline.py"][0]
            for tool, (wall, rss, _) in results.items():
                rows.append((n, tool, wall, rss, base))
            os.remove(text)
            os.remove(bytecode)
            os.remove(bare)
            os.remove(repeated)
            os.remove(repeated_bc)

        # The default (learned) stack on a 2k-kernel step, text and bytecode.
        text = step_file(2000)
        bytecode = to_bytecode(text, ".mlirbc")
        small = timed_together([
            ("baseline.py", [sys.executable, os.path.join(HERE, "baseline.py"), text]),
            ("perf-opt, text, default stack", [opt, text, "--estimate"]),
            ("perf-opt, bytecode, default stack", [opt, bytecode, "--estimate"]),
        ], log)
        base = small["baseline.py"][0]
        for tool, (wall, rss, _) in small.items():
            rows.append((2000, tool, wall, rss, base))

    lines = [BEGIN, "",
             "Generated by `bench/speed/run.py` (do not edit by hand) on %s; load average "
             "%s at the start; baseline.py run by %s (Python %s). Wall seconds and peak RSS of the whole process (start, "
             "parse, passes, report, exit): the monotonic clock around the child and the "
             "kernel's peak RSS of it (wait4), or, where that is not above this Python's own (a forked child's peak starts "
             "at its parent's resident set), of one more run under GNU time; a run under 0.1 s is the median of twenty-one, one under a second the median of five, taken in rounds with the other runs of its size under a second (each round runs each of them once), one under ten seconds the median of three back to back; the roofline prices kernels "
             "except in the *default stack* rows. *vs baseline*: baseline wall time "
             "over this row's (above 1: faster than the baseline)." % (
                 machine(), " ".join(load), sys.executable, platform.python_version()),
             "",
             "| kernels | tool | wall s | peak RSS MiB | us per kernel | KiB per kernel "
             "| vs baseline |",
             "|---|---|---|---|---|---|---|"]
    for n, tool, wall, rss, base in rows:
        lines.append("| %d | %s | %.3f | %.0f | %.2f | %.2f | %.1fx |" % (
            n, tool, wall, rss, wall / n * 1e6, rss * 1024 / n, base / wall))
    if args.plot != "-":
        loglog_svg(rows, args.plot)
        lines += ["", "![wall seconds against kernels per step, log-log](images/%s)"
                  % os.path.basename(args.plot)]
    lines += ["", END, ""]
    write_section(args.out, BEGIN, END, "\n".join(lines), time.time() - started)


if __name__ == "__main__":
    main()
