#!/usr/bin/env python3
"""Probe handler overhead, xtap against SystemTap 4.8, side by side in one VM boot.

The same script (probe_overhead.stp) is built by xtap and by stap for the
6.1 cloud kernel; a guest workload times N getppid() calls with no probe,
under xtap, and under stap, interleaved ROUNDS times. The figure that
matters is the ratio of the two overheads (probed minus bare): under TCG the
absolute nanoseconds are emulated and only comparisons in one boot mean
anything.

stap needs, as the design brief says: Debian's systemtap package; a copy of
its runtime with task_work_cancel() changed to task_work_cancel_func() (the
6.1 stable backport changed its signature); and the kernel's real
System.map, which Debian ships only in the -dbg package (give its path with
--system-map). Without stap the xtap figures are printed alone.

Usage: bench/probe_overhead.py BUILD_DIR [--calls N] [--rounds R] [--system-map PATH]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def find_kernel():
    for image in sorted(os.listdir("/boot")):
        if image.startswith("vmlinuz-6.1.") and image.endswith("-cloud-amd64"):
            rel = image[len("vmlinuz-"):]
            if os.path.exists(f"/lib/modules/{rel}/build/Makefile"):
                return rel
    sys.exit("bench: no 6.1 cloud kernel with headers installed (scripts/bootstrap.sh)")


def build_stap(rel, system_map, work):
    """The stap module, or None (with the reason printed) when stap cannot build it."""
    if not shutil.which("stap"):
        print("stap: not installed (apt-get install systemtap): xtap figures only")
        return None
    if not system_map or not os.path.exists(system_map):
        print("stap: no real System.map for", rel, "(--system-map; Debian's is in the -dbg package)")
        return None
    runtime = os.path.join(work, "stap-runtime")
    shutil.copytree("/usr/share/systemtap/runtime", runtime)
    twc = os.path.join(runtime, "stp_task_work.c")
    src = open(twc).read()
    open(twc, "w").write(src.replace("twork = task_work_cancel(task, func);",
                                     "twork = task_work_cancel_func(task, func);"))
    print("stap: runtime copied, task_work_cancel() -> task_work_cancel_func() (6.1 stable backport)")
    # stap finds System.map in the build directory: give it one that has it.
    build = os.path.join(work, "kbuild")
    os.mkdir(build)
    real = os.path.realpath(f"/lib/modules/{rel}/build")
    for name in os.listdir(real):
        os.symlink(os.path.join(real, name), os.path.join(build, name))
    shutil.copy(system_map, os.path.join(build, "System.map"))
    # ... the common headers (Debian splits them off), where stap looks for
    # the trace event headers ...
    source = f"/lib/modules/{rel}/source"
    if os.path.exists(source) and not os.path.exists(os.path.join(build, "source")):
        os.symlink(os.path.realpath(source), os.path.join(build, "source"))
    # ... and its DWARF (the -dbg package's vmlinux), which stap's
    # kernel.trace and @cast need.
    vmlinux = f"/usr/lib/debug/boot/vmlinux-{rel}"
    if os.path.exists(vmlinux) and not os.path.exists(os.path.join(build, "vmlinux")):
        os.symlink(vmlinux, os.path.join(build, "vmlinux"))
    sh(["stap", "-p4", "-r", build, "-R", runtime, "-m", "stap_overhead",
        os.path.join(HERE, "probe_overhead.stp")], cwd=work)
    return os.path.join(work, "stap_overhead.ko")


STAP_PROGRAMS = ["/usr/bin/staprun", "/usr/lib/systemtap/stapio"]


def stap_guest_files():
    """xtap-vmbatch "file" lines for staprun, stapio and their shared
    libraries (the guest has none of its own)."""
    libs = set()
    for b in STAP_PROGRAMS:
        for line in sh(["ldd", b]).stdout.splitlines():
            m = re.search(r"(/\S+\.so[^\s]*)", line)
            if m:
                libs.add(m.group(1))
    return [f"file {b} {b}" for b in STAP_PROGRAMS] + \
           [f"file {lib} {os.path.realpath(lib)}" for lib in sorted(libs)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--calls", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--system-map", default="")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    rel = find_kernel()
    work = tempfile.mkdtemp(prefix="xtap-bench-")
    print(f"kernel: {rel}; {args.calls} getppid() calls per run, {args.rounds} rounds")

    workload = os.path.join(work, "getppid_loop")
    sh(["gcc", "-static", "-O2", "-o", workload, os.path.join(HERE, "workloads/getppid_loop.c")])
    sh([os.path.join(build, "cli/xtap"), "-p4", "-r", rel, "-m", "xtap_overhead",
        os.path.join(HERE, "probe_overhead.stp")], cwd=work)
    xtap_ko = os.path.join(work, "xtap_overhead.ko")
    stap_ko = build_stap(rel, args.system_map, work)

    cmd = f"getppid_loop {args.calls}"
    lines = [f"file /usr/bin/getppid_loop {workload}", "memory-mb 1024", "cpus 2"]
    if stap_ko:
        lines.append(f"file /bench/stap_overhead.ko {stap_ko}")
        lines += stap_guest_files()
    for r in range(args.rounds):
        lines += [f"job bare{r}", f"command {cmd}", "timeout 300"]
        lines += [f"job xtap{r}", f"module {xtap_ko}", f"command {cmd}", "timeout 300"]
        if stap_ko:
            lines += [f"job stap{r}", f"command staprun -c '{cmd}' /bench/stap_overhead.ko", "timeout 300"]
    manifest = os.path.join(work, "manifest")
    open(manifest, "w").write("\n".join(lines) + "\n")
    out = os.path.join(work, "out")
    rc = subprocess.run([os.path.join(build, "cli/xtap-vmbatch"), "--kernel", rel, manifest, out]).returncode
    if rc != 0:
        sys.exit(f"bench: the VM batch failed ({rc}); see {out}")

    def figures(kind):
        vals = []
        for r in range(args.rounds):
            text = open(os.path.join(out, f"{kind}{r}.out")).read()
            m = re.search(r"ns_per_call=([0-9.]+)", text)
            if not m:
                sys.exit(f"bench: no figure from {kind}{r}: {text!r} / "
                         f"{open(os.path.join(out, f'{kind}{r}.err')).read()!r}")
            vals.append(float(m.group(1)))
        return statistics.median(vals), vals

    bare, bare_all = figures("bare")
    xtap, xtap_all = figures("xtap")
    print(f"bare  getppid(): {bare:9.1f} ns/call  (runs: {', '.join(f'{v:.0f}' for v in bare_all)})")
    print(f"xtap  probed:    {xtap:9.1f} ns/call  overhead {xtap - bare:8.1f} ns/hit  "
          f"(runs: {', '.join(f'{v:.0f}' for v in xtap_all)})")
    if stap_ko:
        stap, stap_all = figures("stap")
        print(f"stap  probed:    {stap:9.1f} ns/call  overhead {stap - bare:8.1f} ns/hit  "
              f"(runs: {', '.join(f'{v:.0f}' for v in stap_all)})")
        print(f"ratio xtap/stap overhead: {(xtap - bare) / max(stap - bare, 1e-9):.2f} "
              "(below 1: xtap's handlers cost less)")
    print("(TCG guest: emulated time; compare within this run only)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
