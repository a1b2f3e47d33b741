"""Running a perf tool from a harness: its standard output, or an error that
names the command and carries what the tool printed on stderr."""

import subprocess


def run(cmd):
    """Runs `cmd` (a list); its stdout, or RuntimeError on a non-zero exit."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + p.stderr.strip())
    return p.stdout
