#!/usr/bin/env python3
"""xtap --check over the installed kernels (issue 27; no VM, seconds).

The script probes what really differs between Debian's 6.1 and 6.12 cloud
kernels: sched_stat_runtime lost its vruntime argument in 6.8, and
inode->i_state went from unsigned long to u32 in 6.12. The test runs
`xtap --check` the way a CI pipeline would, in text and JSON, and checks
the table, the problems, the differences and the exit status; then a
portable script (exit 0), --kernels-from with a bundle manifest and a
list file, a kernel that is not installed, and misuse.

    python3 tests/preflight/run_preflight_test.py [--xtap build/cli/xtap]

Ends with "preflight: N passed, N failed" (scripts/test.sh counts it).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
from checks import Checks  # noqa: E402

OLD, NEW = "6.1.0-56-cloud-amd64", "6.12.117+deb12-cloud-amd64"

DIFFERING = """\
probe kernel.trace("sched:sched_stat_runtime") { printf("%d %d\\n", $runtime, $vruntime) }
probe kernel.function("vfs_read") { printf("%d\\n", $file->f_inode->i_state) }
probe kernel.function("no_such_function_xtap")?, kernel.function("vfs_write") { println(1) }
probe kernel.function("no_such_function_xtap")!, kernel.function("vfs_readv")!,
      kernel.function("vfs_writev") { println(2) }
probe begin { println("hi") }
"""

PORTABLE = """\
probe kernel.function("vfs_read") { printf("%d\\n", $count) }
probe kernel.trace("sched:sched_switch") { printf("%d\\n", $prev->pid) }
"""


def xtap(args, *extra):
    t = time.monotonic()
    r = subprocess.run([args.xtap, *extra], capture_output=True, text=True, timeout=600)
    return r, time.monotonic() - t


def row(text, point):
    for line in text.splitlines():
        if line.startswith(point + " ") or line == point:
            return line[len(point):].split()
    return None


def run(args, work, c):
    differing = os.path.join(work, "differing.stp")
    portable = os.path.join(work, "portable.stp")
    with open(differing, "w") as f:
        f.write(DIFFERING)
    with open(portable, "w") as f:
        f.write(PORTABLE)
    kernels = f"{OLD},{NEW}"

    r, secs = xtap(args, "--check", "--kernels", kernels, differing)
    out = r.stdout
    print(f"      (two kernels in {secs:.1f} s)")
    c.check(r.returncode == 1, "a required point failing on one kernel: exit 1",
            f"rc={r.returncode}\n{out}\n{r.stderr}")
    c.check(row(out, 'kernel.trace("sched:sched_stat_runtime")') == ["ok,", "1", "site", "FAILS",
                                                                   "XTP2225"],
            "sched_stat_runtime: resolves on 6.1, $vruntime missing on 6.12", out)
    c.check(f'B: {differing}:1:' in out and "'$vruntime' is not available" in out,
            "the problem names the variable, the kernel's column and the location", out)
    c.check(row(out, 'kernel.function("no_such_function_xtap")?') == ["skipped", "XTP2153"] * 2 and
            row(out, 'kernel.function("vfs_write")') == ["ok,", "1", "site"] * 2,
            "an optional point that resolves nowhere is skipped, not a failure", out)
    c.check(row(out, 'kernel.function("vfs_readv")!') == ["ok,", "1", "site"] * 2 and
            row(out, 'kernel.function("vfs_writev")') == ["unused", "(1", "site)"] * 2,
            "a sufficient (!) point that resolves: the points after it are unused", out)
    c.check("$file->f_inode->i_state changes type:" in out and "A: long unsigned int" in out and
            "B: u32" in out, "the type change of inode->i_state between 6.1 and 6.12", out)

    r, _ = xtap(args, "--check", "--format", "json", "--kernels", kernels, differing)
    try:
        doc = json.loads(r.stdout)
    except json.JSONDecodeError as e:
        c.check(False, "--format json is one JSON document", f"{e}\n{r.stdout[:2000]}")
        return
    points = {p["point"]: p for p in doc["points"]}
    stat = points.get('kernel.trace("sched:sched_stat_runtime")', {}).get("kernels", {})
    c.check(doc["failures"] == 1 and [k["release"] for k in doc["kernels"]] == [OLD, NEW] and
            stat.get(OLD, {}).get("state") == "resolved" and
            stat.get(NEW, {}).get("state") == "failed" and
            stat[NEW]["problems"][0]["code"] == "XTP2225",
            "JSON: kernels, states, the failure and its code", r.stdout[:3000])
    reads = points.get('kernel.function("vfs_read")', {}).get("kernels", {})
    c.check(reads.get(OLD, {}).get("targets", {}).get("$file->f_inode->i_state") ==
            ["long unsigned int"] and
            reads.get(NEW, {}).get("targets", {}).get("$file->f_inode->i_state") == ["u32"],
            "JSON: each target expression with its C type per kernel", json.dumps(reads)[:2000])
    writev = points.get('kernel.function("vfs_writev")', {}).get("kernels", {})
    c.check(all(writev.get(k, {}).get("shadowed") for k in (OLD, NEW)),
            "JSON: the point after a resolved ! point is shadowed", json.dumps(writev))

    r, _ = xtap(args, "--check", "-r", OLD, "-r", NEW, portable)
    c.check(r.returncode == 0 and "Every required probe point resolves on every kernel" in r.stdout,
            "a portable script: exit 0 (kernels given as -r -r)", r.stdout + r.stderr)

    bundle = os.path.join(work, "bundle")
    os.makedirs(bundle)
    with open(os.path.join(bundle, "manifest.json"), "w") as f:
        json.dump({"xtap_bundle": 1, "modules": [{"release": NEW}, {"release": OLD}]}, f)
    r, _ = xtap(args, "--check", "--kernels-from", bundle, portable)
    c.check(r.returncode == 0 and f"A: {NEW}" in r.stdout and f"B: {OLD}" in r.stdout,
            "--kernels-from a bundle directory: its manifest's kernels, in order",
            r.stdout + r.stderr)
    listing = os.path.join(work, "fleet.txt")
    with open(listing, "w") as f:
        f.write(f"# the fleet\n{OLD}\n\n9.9.9-not-installed\n")
    r, _ = xtap(args, "--check", "--kernels-from", listing, portable)
    c.check(r.returncode == 1 and "9.9.9-not-installed (not found)" in r.stdout and
            "no kernel build directory for 9.9.9-not-installed" in r.stdout,
            "a kernel that is not installed: its column says so, exit 1", r.stdout + r.stderr)

    r, _ = xtap(args, "--check", "-p2", "-r", OLD, portable)
    c.check(r.returncode == 1 and "--check: it runs passes 1-2 itself" in r.stderr,
            "--check with -p2 is refused with the reason", r.stderr)
    r, _ = xtap(args, "--check", "--kernels-from", os.path.join(work, "missing"), portable)
    c.check(r.returncode == 1 and "--kernels-from: cannot read" in r.stderr,
            "--kernels-from a missing file: a clear error", r.stderr)
    r, _ = xtap(args, "--check", "-r", OLD, "-e", "probe begin { x = }")
    c.check(r.returncode == 1 and "[XTP1010]" in r.stdout,
            "a script that does not parse: the parse error, exit 1", r.stdout + r.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xtap", default=os.path.join(os.path.dirname(__file__), "../../build/cli/xtap"))
    args = ap.parse_args()
    args.xtap = os.path.abspath(args.xtap)
    c = Checks()
    missing = [k for k in (OLD, NEW) if not os.path.isdir(f"/lib/modules/{k}/build")]
    if missing:
        c.check(False, "the kernels' headers are installed (scripts/bootstrap.sh)", " ".join(missing))
    else:
        with tempfile.TemporaryDirectory(prefix="xtap-preflight.") as work:
            run(args, work, c)
    print(f"preflight: {c.passed} passed, {c.failed} failed")
    return 0 if c.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
