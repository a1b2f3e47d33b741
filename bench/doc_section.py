"""Writes a generated block between its markers in a Markdown file."""

import os
import re
import sys


def write_section(path, begin, end, text, elapsed):
    """Replaces the block from `begin` to `end` in `path` by `text` (which
    holds both markers), appends it when the file has none, or prints it
    when `path` is '-'."""
    if path == "-":
        sys.stdout.write(text)
        return
    doc = open(path).read() if os.path.exists(path) else ""
    if begin in doc:
        doc = re.sub(re.escape(begin) + r".*?" + re.escape(end) + r"\n?", lambda _: text, doc,
                     flags=re.S)
    else:
        doc += "\n" + text
    with open(path, "w") as f:
        f.write(doc)
    print("updated %s (%.0f s)" % (path, elapsed), file=sys.stderr)
