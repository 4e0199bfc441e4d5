#!/usr/bin/env python3
"""Runs runtime-test scripts under xtap and under SystemTap 4.8 in one VM boot
and compares what they print: the check behind "prints what stap prints".

Not part of CI: stap needs Debian's systemtap package and the kernel's real
System.map from the -dbg package (see bench/probe_overhead.py, whose stap
set-up this reuses). Tests with a workload (RUN), extra options (ARGS) or
an expected build failure are left out.

Usage: tests/stapcompare/compare.py BUILD_DIR [FILTER...] --system-map PATH
Prints SAME/DIFF per script (with a diff) and "N same, N different".
"""
import argparse
import difflib
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import probe_overhead as bench  # noqa: E402  (stap set-up and guest files)


def script_of(test):
    """The PROG of a runtime test, or None if it needs more than a script."""
    lines = open(test).read().split("\n")
    prog, inprog = [], False
    for l in lines:
        if re.match(r"(RUN|ARGS|BUILD_FAIL_REGEX|RUNNER_ARGS|INTERRUPT_AFTER_MS|SCRIPT)\b", l):
            return None
        if l.startswith("PROG "):
            prog.append(l[5:])
            inprog = True
        elif inprog and l.startswith("  "):
            prog.append(l[2:])
        else:
            inprog = False
    return "\n".join(prog) + "\n" if prog else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--system-map", required=True)
    ap.add_argument("filters", nargs="*")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    rel = bench.find_kernel()
    work = tempfile.mkdtemp(prefix="xtap-stapcompare-")
    # Reuse the benchmark's stap set-up (patched runtime, build dir with System.map).
    if not bench.build_stap(rel, args.system_map, work):
        sys.exit("stapcompare: stap is not usable here")
    stap_build, stap_runtime = os.path.join(work, "kbuild"), os.path.join(work, "stap-runtime")

    names = []
    for test in sorted(glob.glob(os.path.join(ROOT, "tests/runtime/*/*.test"))):
        tid = os.path.relpath(test, os.path.join(ROOT, "tests/runtime"))[:-5]
        if args.filters and not any(f in tid for f in args.filters):
            continue
        prog = script_of(test)
        if not prog:
            continue
        name = re.sub(r"[^a-z0-9_]", "_", tid)
        path = os.path.join(work, name + ".stp")
        open(path, "w").write(prog)
        s = subprocess.run(["stap", "-p4", "-r", stap_build, "-R", stap_runtime, "-m", "s_" + name, path],
                           cwd=work, capture_output=True, text=True)
        x = subprocess.run([os.path.join(build, "cli/xtap"), "-p4", "-r", rel, "-m", "x_" + name, path],
                           cwd=work, capture_output=True, text=True)
        if s.returncode or x.returncode:
            print(f"SKIP  {tid}: build failed ({'stap' if s.returncode else 'xtap'}): "
                  f"{(s.stderr if s.returncode else x.stderr).strip().splitlines()[:1]}")
            continue
        names.append((tid, name))

    lines = ["memory-mb 1024", "cpus 2"]
    lines += bench.stap_guest_files()
    for _, name in names:
        lines.append(f"file /cmp/s_{name}.ko {os.path.join(work, 's_' + name + '.ko')}")
    for _, name in names:
        lines += [f"job x_{name}", f"module {os.path.join(work, 'x_' + name + '.ko')}", "timeout 60",
                  f"job s_{name}", f"command staprun /cmp/s_{name}.ko", "timeout 60"]
    manifest = os.path.join(work, "manifest")
    open(manifest, "w").write("\n".join(lines) + "\n")
    out = os.path.join(work, "out")
    subprocess.run([os.path.join(build, "cli/xtap-vmbatch"), "--kernel", rel, manifest, out])

    same = 0
    for tid, name in names:
        xo = open(os.path.join(out, f"x_{name}.out"), errors="replace").read()
        so = open(os.path.join(out, f"s_{name}.out"), errors="replace").read()
        if xo == so:
            same += 1
            print(f"SAME  {tid}")
            continue
        print(f"DIFF  {tid}")
        for d in difflib.unified_diff(so.splitlines(), xo.splitlines(), "stap", "xtap", lineterm="", n=1):
            print("      " + d)
    print(f"{same} same, {len(names) - same} different")


if __name__ == "__main__":
    main()
