#!/usr/bin/env python3
"""Checks that a binary was linked in the order of cmake/startup.order.

    scripts/check-startup-order.py BINARY ORDER_FILE

Passes when most of the functions the order file lists are still in the
binary (else the list is stale: run scripts/startup-order.py) and when
those the binary defines lie packed together, as lld's
--symbol-ordering-file places them: within twice their total size. Linked
in the default order they spread over the whole text segment.
"""

import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    binary, order_file = sys.argv[1], sys.argv[2]
    with open(order_file) as f:
        listed = {line.strip() for line in f if line.strip()}
    out = subprocess.run(
        ["nm", "--defined-only", "--print-size", binary],
        check=True, capture_output=True, text=True).stdout
    # The listed functions the binary defines, one entry per address
    # (aliases name the same code).
    placed, names = {}, set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW" and parts[3] in listed:
            placed[int(parts[0], 16)] = int(parts[1], 16)
            names.add(parts[3])
    found = len(names)
    share = found / max(1, len(listed))
    print(f"{found} of the {len(listed)} listed functions are in "
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


if __name__ == "__main__":
    main()
