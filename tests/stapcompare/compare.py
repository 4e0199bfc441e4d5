#!/usr/bin/env python3
"""Runs runtime-test scripts under xtap and under SystemTap 4.8 in one VM boot
and compares what they print: the check behind "prints what stap prints".

Not part of CI: stap needs Debian's systemtap package and the kernel's real
System.map from the -dbg package (see bench/peers.py, whose stap
set-up this reuses). Tests with a workload (RUN) run it under both (xtap-run
-c and staprun -c, the runtime suite's static workloads in /usr/bin); tests
with extra options (ARGS, RUNNER_ARGS), an interrupt, an external SCRIPT or
an expected build failure are left out.

Usage: tests/stapcompare/compare.py BUILD_DIR [FILTER...] --system-map PATH
Prints SAME/DIFF per script (with a diff) and "N same, N different".
"""
import argparse
import difflib
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import peers as bench  # noqa: E402  (stap set-up and guest files)
sys.path.insert(0, os.path.join(ROOT, "tests", "runtime"))
import engine  # noqa: E402  (the runtime suite's static workloads)
import testfile  # noqa: E402


def normalised(text):
    """Output with what must differ between the tools made equal: the
    collector's name (stapio, xtap-run) and kernel addresses."""
    text = re.sub(r"\bstapio\b", "xtap-run", text)
    return re.sub(r"0xffff[0-9a-f]{12}", "0xffff<addr>", text)


def comparable(t):
    """Whether both tools can run test t as it stands: a script, maybe a workload."""
    return (t.prog and not (t.args or t.runner_args or t.script or t.build_fail_regex)
            and t.interrupt_after_ms < 0)


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
    runs = {}
    root = os.path.join(ROOT, "tests/runtime")
    for test in sorted(glob.glob(os.path.join(root, "*/*.test"))):
        t = testfile.parse_test_file(test, root)
        tid = t.id
        if args.filters and not any(f in tid for f in args.filters):
            continue
        if not comparable(t):
            continue
        prog = t.prog
        runs[tid] = t.run
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
    if any(runs[tid] for tid, _ in names):
        lines += [f"file {guest} {host}" for guest, host in engine.build_workloads(work, 2)]
    for _, name in names:
        lines.append(f"file /cmp/s_{name}.ko {os.path.join(work, 's_' + name + '.ko')}")
    for tid, name in names:
        run = runs[tid]
        lines += [f"job x_{name}", f"module {os.path.join(work, 'x_' + name + '.ko')}"]
        lines += [f"command {run}"] if run else []
        stap_c = f"-c {shlex.quote(run)} " if run else ""
        lines += ["timeout 60", f"job s_{name}", f"command staprun {stap_c}/cmp/s_{name}.ko", "timeout 60"]
    manifest = os.path.join(work, "manifest")
    open(manifest, "w").write("\n".join(lines) + "\n")
    out = os.path.join(work, "out")
    subprocess.run([os.path.join(build, "cli/xtap-vmbatch"), "--kernel", rel, manifest, out])

    same = 0
    for tid, name in names:
        xo = normalised(open(os.path.join(out, f"x_{name}.out"), errors="replace").read())
        so = normalised(open(os.path.join(out, f"s_{name}.out"), errors="replace").read())
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
