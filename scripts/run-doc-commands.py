#!/usr/bin/env python3
"""Runs the commands of README.md and docs/*.md as a reader would.

    run-doc-commands.py [--build build] [--scratch DIR] [--list] [--filter TEXT] [FILE.md ...]

A fenced block is run when it is a shell block (```sh, ```bash, ```console,
or an unmarked block whose lines are commands: build/bin/..., python3 ...,
bench/..., scripts/..., `$ ` prompts) or a ```python block. In a block with
`$ ` prompts only the prompted lines run (the rest is their output); a line
ending in `\\` or `|`, or the next one starting with `|`, continues the
command. A block's commands run in one bash session, in order (variables
carry over), from a scratch copy of the repository root (the sources
copied, build/ linked, ../shared beside it), with build/bin on PATH as the
README's `export PATH=$PWD/build/bin:$PATH` puts it, so what they write
stays there; python blocks run with the build's python/ on PYTHONPATH.

What a doc shows a block printing is checked: the lines after each `$ `
command of a prompted block, and a plain block (no language, not itself
commands) right after a command block. Each shown line but `...` must
appear in the block's output (standard output and error; a printed line
stands for one shown line; not in order: the two streams reach a pipe in
another order than a terminal shows them), runs of blanks compared as
one; a shown line ending in `...` matches a printed line that starts with
what comes before it.

An HTML comment on the line before a block's fence changes what is
expected of it:
  <!-- docs-test: skip (why) -->   not run (a GPU, minutes of work, ...)
  <!-- docs-test: fails -->        the block must fail cleanly (exit 1 or 2,
                                   an error message, no crash)
  <!-- docs-test: requires nvcc --> run only where the CUDA compiler is
                                   (runtime/bench needs it to build)
  <!-- docs-test: varies (why) --> on a block of output: what it shows
                                   differs from run to run (timings), so it
                                   is not compared

Prints one line per block; exits 1 when one does not do what its doc
says, 77 when ../shared/data is missing (--skip-without-data).
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMAND = re.compile(r"^(build/bin/|runtime/bench/build/|python3 |PYTHONPATH=|bench/|scripts/|"
                     r"cmake |ctest |ninja |perf-[a-z-]+ |export |[A-Z_][A-Z0-9_]*=\S*(\s|$)|"
                     r"\$[A-Z]+ )")
MARKER = re.compile(r"<!--\s*docs-test:\s*(skip|fails|requires|varies)\b\s*(.*?)-->")
# A block's limit: the longest, building perf-bench's CUDA sources, takes
# about 250 s on two idle cores and over 300 s while ctest runs other tests
# beside it.
TIMEOUT = 900


def blocks(path):
    """(line, language, body lines, marker) of every fenced block."""
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2)
        marker = None
        if i > 0:
            mm = MARKER.search(lines[i - 1])
            if mm:
                marker = (mm.group(1), mm.group(2).strip().strip("()"))
        start = i + 1
        j = start
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            j += 1
        body = [l[len(indent):] if l.startswith(indent) else l for l in lines[start:j]]
        # Whether another fence opens right after this block (blank lines
        # between): a plain one there shows what this one prints.
        k = j + 1
        while k < len(lines) and not lines[k].strip():
            k += 1
        followed = k < len(lines) and re.match(r"^\s*```\s*$", lines[k]) is not None
        yield start, lang, body, marker, followed
        i = j + 1


def shown_output(body):
    """What a prompted block shows its commands printing: the lines that are
    not commands or their continuations."""
    if not any(l.startswith("$ ") for l in body):
        return []
    out, continued = [], False
    for raw in body:
        line = raw.rstrip()
        if continued or line.startswith("$ "):
            continued = line.endswith("\\") or line.endswith("|")
            continue
        out.append(line)
    return out


def normalized(line):
    return " ".join(line.split())


def missing_line(shown, printed):
    """The first shown line that was not printed (None when all were). A
    printed line stands for one shown line. Order is not compared: a tool's
    standard output and error reach a pipe in another order than a
    terminal shows them."""
    printed = [normalized(l) for l in printed.split("\n")]
    used = [False] * len(printed)
    for line in shown:
        want = normalized(line)
        if not want or want == "...":
            continue
        prefix = want.endswith("...") and want[:-3].rstrip()
        found = next((i for i, have in enumerate(printed) if not used[i] and (
            have == want or (prefix and have.startswith(prefix)))), None)
        if found is None:
            return line
        used[found] = True
    return None


def commands(lang, body):
    """The shell commands of a block, continuation lines joined."""
    prompted = any(l.startswith("$ ") for l in body)
    out, current = [], None
    for raw in body:
        line = raw.rstrip()
        if current is not None:
            current += "\n" + line
            if not (line.endswith("\\") or line.endswith("|")):
                out.append(current)
                current = None
            continue
        if prompted:
            # The lines after a prompted command are its output.
            if not line.startswith("$ "):
                continue
            line = line[2:]
        elif not line or line.lstrip().startswith("#"):
            continue
        elif line.lstrip().startswith("|") and out:
            out[-1] += "\n" + line
            continue
        elif lang not in ("sh", "bash", "shell", "console") and not COMMAND.match(line):
            continue
        if line.endswith("\\") or line.endswith("|"):
            current = line
        else:
            out.append(line)
    if current is not None:
        out.append(current)
    return out


def scratch(build, base):
    """A scratch repository root: a copy of the sources (a few MB) with the
    build linked, ../shared beside it."""
    shutil.rmtree(base, ignore_errors=True)
    work = os.path.join(base, "root")
    os.makedirs(work)
    for entry in os.listdir(ROOT):
        if entry.startswith(".") or entry.startswith("build"):
            continue
        src = os.path.join(ROOT, entry)
        dst = os.path.join(work, entry)
        if os.path.isdir(src):
            # Build folders (runtime/bench/build) stay out: the docs build
            # them.
            shutil.copytree(src, dst, symlinks=True,
                            ignore=shutil.ignore_patterns("build", "build-*"))
        else:
            shutil.copy2(src, dst)
    os.symlink(os.path.abspath(build), os.path.join(work, "build"))
    shared = os.path.normpath(os.path.join(ROOT, "..", "shared"))
    if os.path.isdir(shared):
        os.symlink(shared, os.path.join(base, "shared"))
    return work


def run(command, cwd, env, python=False):
    started = time.time()
    argv = [sys.executable if python else "bash", "-" if python else "-o"]
    if not python:
        argv += ["pipefail", "-c", command]
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, input=command if python else None,
                           capture_output=True, text=True, timeout=TIMEOUT)
        return p.returncode, p.stdout + p.stderr, time.time() - started
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % TIMEOUT, time.time() - started


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--scratch", help="where the scratch copy goes (default: BUILD/docs-test)")
    ap.add_argument("--list", action="store_true", help="print the commands, run nothing")
    ap.add_argument("--filter", help="run only commands containing this text")
    ap.add_argument("--skip-without-data", action="store_true")
    args = ap.parse_args()
    if args.skip_without_data and not os.path.isdir(os.path.join(ROOT, "..", "shared", "data")):
        print("skipped: no ../shared/data")
        return 77
    files = args.files or ([os.path.join(ROOT, "README.md")] +
                           sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))))
    build = os.path.abspath(args.build)
    work = None if args.list else scratch(
        build, os.path.abspath(args.scratch or os.path.join(build, "docs-test")))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(build, "python")
    env.pop("PERF_MODEL_DIR", None)
    env["PATH"] = os.path.join(build, "bin") + os.pathsep + env["PATH"]
    failures = ran = skipped = 0
    for path in files:
        name = os.path.relpath(path, ROOT)
        # The output of the last block run, for a block of output after it.
        last = None
        for line, lang, body, marker, followed in blocks(path):
            previous, last = last, None
            if previous and lang == "" and not commands(lang, body):
                if marker and marker[0] == "varies":
                    continue
                missing = missing_line(body, previous)
                if missing is not None:
                    failures += 1
                    print("FAIL %s:%d  shown output not printed: %s" % (name, line, missing.strip()))
                continue
            python = lang == "python"
            if not python and lang not in ("", "sh", "bash", "shell", "console"):
                continue  # text, JSON, MLIR, ...
            cmds = ["\n".join(body)] if python else commands(lang, body)
            if args.filter:
                cmds = [c for c in cmds if args.filter in c]
            if not cmds:
                continue
            where = "%s:%d" % (name, line)
            shown = cmds[0].split("\n")[0][:90] + (" (+%d)" % (len(cmds) - 1) if len(cmds) > 1 else "")
            reason = None
            if marker and marker[0] == "skip":
                reason = marker[1]
            elif (python or "PYTHONPATH=build/python" in cmds[0]) and not os.path.isdir(
                    os.path.join(env["PYTHONPATH"], "perf")):
                reason = "the Python package was not built"
            elif marker and marker[0] == "requires" and not shutil.which(
                    marker[1], path=env["PATH"] + os.pathsep + "/usr/local/cuda/bin"):
                reason = "no %s here" % marker[1]
            if reason:
                skipped += 1
                print("SKIP %s  %s  (%s)" % (where, shown, reason))
                continue
            if args.list:
                for c in cmds:
                    print("%s  %s" % (where, c.split("\n")[0][:100]))
                continue
            # A block's commands run in one shell, as a reader types them
            # one after the other (variables carry over), stopping at the
            # first that fails.
            script = cmds[0] if python else "set -e\n" + "\n".join(cmds)
            rc, output, seconds = run(script, work, env, python)
            ran += 1
            expect_failure = marker and marker[0] == "fails"
            ok = rc == 0 if not expect_failure else rc in (1, 2) and "error" in output
            missing = None
            if ok and not python:
                missing = missing_line(shown_output(body), output)
            print("%s %s  %s  (%.1f s)" % ("ok  " if ok and missing is None else "FAIL", where,
                                           shown, seconds))
            if not ok:
                failures += 1
                print("     exit %s\n     %s" % (rc, "\n     ".join(output.strip().split("\n")[-8:])))
            elif missing is not None:
                failures += 1
                print("     shown output not printed: %s" % missing.strip())
            elif followed:
                last = output
    if not args.list:
        print("%d blocks run, %d skipped, %d failed" % (ran, skipped, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
