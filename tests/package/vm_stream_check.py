#!/usr/bin/env python3
"""xtap --vm streams the guest's output (issue 29): one VM boot.

Runs XTAP --vm on a script that prints a line every 100 ms and exits
after 6 s, reads xtap's standard output as it comes, and checks that
every line arrived, in order, and that the first one arrived seconds
before xtap ended (not all at once at the end, as before streaming).
The last line says what was measured, e.g. "first line 3.1 s after the
boot, 6.9 s before xtap ended".

    python3 tests/package/vm_stream_check.py [XTAP [OPTION...]]

XTAP defaults to the build's (build/cli/xtap); OPTIONs go to it (-r KVER).
Exit status 0 when the output streamed. run_package_test.sh runs it with
the installed xtap.
"""
import os
import subprocess
import sys
import tempfile
import time

SCRIPT = 'global n probe timer.ms(100) { n++; printf("tick %d\\n", n) } probe timer.s(6) { exit() }'
MIN_LINES = 20   # 60 at 100 ms; an emulated guest's timers may lag
MIN_LEAD_S = 3   # the first line must arrive this long before xtap ends


def main():
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    xtap = sys.argv[1] if len(sys.argv) > 1 else os.path.join(repo, "build", "cli", "xtap")
    argv = [xtap, "--vm", "-q", *sys.argv[2:], "-e", SCRIPT]
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err)
        lines, arrivals, partial = [], [], b""
        while True:
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            now = time.monotonic() - start
            partial += chunk
            *whole, partial = partial.split(b"\n")
            for line in whole:
                lines.append(line.decode(errors="replace"))
                arrivals.append(now)
        try:
            rc = p.wait(timeout=900)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        ended = time.monotonic() - start
        err.seek(0)
        stderr = err.read().decode(errors="replace")

    problems = []
    if rc != 0:
        problems.append(f"xtap exited with {rc}")
    expected = [f"tick {i}" for i in range(1, len(lines) + 1)]
    if lines != expected or partial:
        problems.append("the lines are not tick 1, tick 2, ... in order: " + repr((lines + [partial])[:8]))
    if len(lines) < MIN_LINES:
        problems.append(f"{len(lines)} lines, fewer than {MIN_LINES}")
    lead = ended - arrivals[0] if arrivals else 0
    if arrivals and lead < MIN_LEAD_S:
        problems.append(f"the first line arrived {lead:.1f} s before xtap ended (want {MIN_LEAD_S} s or more): "
                        "the output did not stream")
    gap = max((b - a for a, b in zip(arrivals, arrivals[1:])), default=0)
    measured = (f"{len(lines)} lines; first after {arrivals[0]:.1f} s, last after {arrivals[-1]:.1f} s, "
                f"xtap ended after {ended:.1f} s: the first line came {lead:.1f} s before the end; "
                f"longest wait between lines {gap:.2f} s"
                if arrivals else f"no output; xtap ended after {ended:.1f} s")
    if problems:
        print("FAIL  xtap --vm streams its output")
        for pr in problems:
            print("      " + pr)
        if stderr.strip():
            print("      stderr:\n" + "\n".join("      | " + l for l in stderr.strip().splitlines()[-15:]))
        print(measured)
        return 1
    print("PASS  xtap --vm streams its output")
    print(measured)
    return 0


if __name__ == "__main__":
    sys.exit(main())
