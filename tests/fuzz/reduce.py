#!/usr/bin/env python3
"""Line-wise delta reduction of a generated script that shows a finding.

    python3 tests/fuzz/reduce.py SCRIPT 'COMMAND {}' [-o OUT]

COMMAND is run through the shell with {} replaced by a candidate file; it
exits 0 while the candidate still shows the finding (for example
`build/tests/fuzz/xtap_fuzz_gen --file {} | grep -q roundtrip`, or a -p4
build whose log still has the warning). Chunks of lines are dropped,
halving the chunk size down to one line, until no single line can go (a
simple ddmin). Writes the smallest script to OUT (SCRIPT.min by default).
Python 3 standard library only.
"""

import argparse
import os
import subprocess
import sys
import tempfile


def interesting(lines, command):
    with tempfile.NamedTemporaryFile("w", suffix=".stp", delete=False) as f:
        f.write("".join(lines))
        path = f.name
    try:
        return subprocess.run(command.replace("{}", path), shell=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    finally:
        os.unlink(path)


def reduce(lines, command):
    chunk = max(1, len(lines) // 2)
    while True:
        i, changed = 0, False
        while i < len(lines):
            candidate = lines[:i] + lines[i + chunk:]
            if candidate and interesting(candidate, command):
                lines, changed = candidate, True
            else:
                i += chunk
        if chunk == 1 and not changed:
            return lines
        chunk = max(1, chunk // 2) if not changed or chunk > 1 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("script")
    ap.add_argument("command")
    ap.add_argument("-o", "--out")
    a = ap.parse_args()
    with open(a.script) as f:
        lines = f.readlines()
    if not interesting(lines, a.command):
        print("reduce: the script does not show the finding", file=sys.stderr)
        return 1
    small = reduce(lines, a.command)
    out = a.out or a.script + ".min"
    with open(out, "w") as f:
        f.write("".join(small))
    print(f"reduce: {len(lines)} -> {len(small)} lines: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
