#!/usr/bin/env python3
"""A Kineto trace of about SIZE bytes (default 1 GB) made from a measured one
by repeating its events back to back (timestamps shifted by the trace's
span; correlation, external and flow ids and ProfilerStep numbers made
unique per copy), and the time and peak memory of importing it.

    bench/traces/large_kineto.py [--build build] [--size 1e9] [--keep FILE]

Prints one line per import (the default iteration, and every iteration with
--iteration=-1): wall seconds, peak RSS MiB, the file's size and events.
"""

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = os.path.join(ROOT, "..", "shared", "data", "traces", "kineto",
                      "tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz")
STEP = re.compile(r"^ProfilerStep#(\d+)$")
ID_ARGS = ("correlation", "external id")


def write_large(source, size, path):
    with gzip.open(source, "rt") as f:
        trace = json.load(f)
    events = trace.pop("traceEvents")
    timed = [e for e in events if isinstance(e.get("ts"), (int, float))]
    start = min(e["ts"] for e in timed)
    span = max(e["ts"] + e.get("dur", 0) for e in timed) - start + 1000
    max_id = max([e["args"][k] for e in events for k in ID_ARGS
                  if isinstance(e.get("args"), dict) and isinstance(e["args"].get(k), int)] +
                 [e["id"] for e in events if isinstance(e.get("id"), int)]) + 1
    steps = [int(m.group(1)) for m in (STEP.match(e.get("name", "")) for e in events) if m]
    step_span = (max(steps) - min(steps) + 1) if steps else 0
    per_copy = len(json.dumps(events, separators=(",", ":")))
    copies = max(1, int(size // per_copy))
    count = 0
    with open(path, "w") as out:
        head = json.dumps(trace, separators=(",", ":"))
        out.write(head[:-1] + ',"traceEvents":[')
        first = True
        for c in range(copies):
            for e in events:
                if c and e.get("ph") == "M":
                    continue
                e = dict(e)
                if isinstance(e.get("ts"), (int, float)):
                    e["ts"] += c * span
                if isinstance(e.get("id"), int):
                    e["id"] += c * max_id
                m = STEP.match(e.get("name", ""))
                if m:
                    e["name"] = "ProfilerStep#%d" % (int(m.group(1)) + c * step_span)
                if isinstance(e.get("args"), dict):
                    args = dict(e["args"])
                    for k in ID_ARGS:
                        if isinstance(args.get(k), int) and args[k] >= 0:
                            args[k] += c * max_id
                    e["args"] = args
                out.write(("" if first else ",") + json.dumps(e, separators=(",", ":")))
                first = False
                count += 1
        out.write("]}")
    return copies, count


def timed(cmd):
    with tempfile.TemporaryFile("w+") as err:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=subprocess.DEVNULL,
                           stderr=err, text=True)
        err.seek(0)
        lines = err.read().strip().splitlines()
    if p.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + "\n".join(lines[-5:]))
    wall, rss = lines[-1].split()
    return float(wall), int(rss) / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--size", type=float, default=1e9)
    ap.add_argument("--keep", help="write the trace here and keep it")
    args = ap.parse_args()
    path = args.keep or tempfile.mktemp(suffix=".json")
    print("large_kineto: writing %.0f MB to %s" % (args.size / 1e6, path), file=sys.stderr)
    copies, count = write_large(SOURCE, args.size, path)
    nbytes = os.path.getsize(path)
    translate = os.path.join(args.build, "bin", "perf-translate")
    try:
        for label, extra in (("default iteration", []), ("every iteration", ["--iteration=-1"])):
            print("large_kineto: importing (%s)" % label, file=sys.stderr)
            wall, rss = timed([translate, "--import-kineto", path, "--emit-bytecode", "-o",
                               os.devnull] + extra)
            print("| %s | %.0f | %d | %d | %.1f | %.0f |" % (label, nbytes / 1e6, count, copies,
                                                           wall, rss))
    finally:
        if not args.keep:
            os.remove(path)


if __name__ == "__main__":
    main()
