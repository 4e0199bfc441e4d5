#!/usr/bin/env python3
"""Pass 2 on representative scripts: wall time and peak resident memory, xtap against stap 4.8.

Each script is elaborated with `xtap -p2 -r KVER` on every kernel given
(default: the 6.1 and 6.12 cloud kernels that have headers installed) and,
beside it, with `stap -p2 -r KVER` on the same kernel when stap is installed
(stap needs debuginfo for most of these: where it fails, its cell says
"fail"). xtap runs once untimed first, so every figure is with warm caches
(the BTF, symbol table, DWARF function and inline indexes, tapsets'
catalog); "cold" empties the pass-2 caches (btf/, dwarf/, symbols/) first
and times one run. Figures are the median of ROUNDS runs: wall-clock
milliseconds, CPU milliseconds (user + system: on a shared machine the
steadier figure, and the one the goal is read against) and the child's peak
RSS in MB (wait4's ru_maxrss).

The goal (issue 30): every row <= 100 ms and <= 150 MB warm.

Usage: bench/pass2.py BUILD_DIR [--kernel KVER ...] [--rounds N] [--no-stap] [--cold]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

SCRIPTS = {
    "syscall.read": 'probe syscall.read { printf("%d %s\\n", fd, execname()) }\n',
    "__x64_sys_* function": 'probe kernel.function("__x64_sys_getppid") { printf("%d\\n", pid()) }\n',
    "function + $vars": 'probe kernel.function("vfs_read") { printf("%d %d\\n", $count, $file->f_flags) }\n',
    "function wildcard": 'probe kernel.function("vfs_*") { printf("%s\\n", ppfunc()) }\n',
    "file wildcard": 'probe kernel.function("*@fs/namei.c") { printf("%s\\n", ppfunc()) }\n',
    ".inline": 'probe kernel.function("d_inode").inline { printf("%s\\n", pp()) }\n',
    ".return $return": 'probe kernel.function("vfs_write").return { printf("%d\\n", $return) }\n',
    "tracepoint": 'probe kernel.trace("sched_switch") { printf("%d\\n", $next->pid) }\n',
    "process begin": 'probe process("/bin/true").begin { printf("%d\\n", pid()) }\n',
    "syscall.*": 'probe syscall.* { printf("%s %s\\n", name, argstr) }\n',
    "syscall.*.return": 'probe syscall.*.return { printf("%s %s\\n", name, retstr) }\n',
}

GOAL_MS, GOAL_MB = 100, 150


def kernels(wanted):
    if wanted:
        return wanted
    rels = sorted(r for r in os.listdir("/lib/modules")
                  if r.endswith("-cloud-amd64") and os.path.exists(f"/lib/modules/{r}/build/Makefile"))
    pick = [r for r in rels if r.startswith("6.1.")][-1:] + [r for r in rels if r.startswith("6.12.")][-1:]
    return pick or rels[-1:]


def measure(cmd):
    """(wall s, CPU s, MB peak RSS, exit status) of one run of `cmd`."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status)


def median_of(cmd, rounds):
    """(wall ms, CPU ms, MB) medians, or None when a run failed."""
    runs = [measure(cmd) for _ in range(rounds)]
    if any(r[3] != 0 for r in runs):
        return None
    return tuple(statistics.median(r[k] for r in runs) * (1000 if k < 2 else 1) for k in range(3))


def cell(m):
    return f"{m[0]:6.0f} {m[1]:6.0f} {m[2]:5.0f}" if m else f"{'fail':>19}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir")
    ap.add_argument("--kernel", action="append")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-stap", action="store_true")
    ap.add_argument("--cold", action="store_true", help="also time one run with the pass-2 caches emptied")
    ap.add_argument("--only", help="substring of the script names to run")
    o = ap.parse_args()
    xtap = os.path.join(o.build_dir, "cli", "xtap")
    stap = None if o.no_stap else shutil.which("stap")
    cache = os.environ.get("XTAP_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "xtap")
    work = os.path.join(o.build_dir, "bench-pass2")
    os.makedirs(work, exist_ok=True)
    missed, cpu, rss, ratios = [], [], [], []
    for rel in kernels(o.kernel):
        print(f"\nkernel {rel}: -p2, median of {o.rounds}, warm caches (goal <= {GOAL_MS} ms, <= {GOAL_MB} MB)")
        cols = f"{'wall':>6} {'CPU':>6} {'MB':>5}"
        print(f"{'':22} {'xtap':^19}" + (f" {'xtap cold':^19}" if o.cold else "")
              + (f" {'stap':^19} {'ratio xtap/stap':^26}" if stap else ""))
        print(f"{'script':22} {cols}" + (f" {cols}" if o.cold else "")
              + (f" {cols} {'wall':>8} {'CPU':>8} {'RSS':>8}" if stap else ""))
        for name, text in SCRIPTS.items():
            if o.only and o.only not in name:
                continue
            script = os.path.join(work, "".join(c if c.isalnum() else "_" for c in name) + ".stp")
            with open(script, "w") as f:
                f.write(text)
            cmd = [xtap, "-p2", "-r", rel, script]
            cold = None
            if o.cold:
                for sub in ("btf", "dwarf", "symbols"):
                    shutil.rmtree(os.path.join(cache, sub), ignore_errors=True)
                cold = median_of(cmd, 1)
            measure(cmd)  # warm the caches and the page cache
            x = median_of(cmd, o.rounds)
            line = f"{name:22} {cell(x)}" + (f" {cell(cold)}" if o.cold else "")
            if x:
                cpu.append(x[1])
                rss.append(x[2])
            if x and (x[1] > GOAL_MS or x[2] > GOAL_MB):
                missed.append(f"{rel} {name}: {x[1]:.0f} ms CPU {x[2]:.0f} MB")
            if stap:
                s = median_of([stap, "-p2", "-r", rel, script], o.rounds)
                line += f" {cell(s)}"
                if s and x:
                    line += f" {x[0] / s[0]:8.3f} {x[1] / s[1]:8.3f} {x[2] / s[2]:8.2f}"
                    ratios.append(x[1] / s[1])
            print(line, flush=True)
    print("\nover the goal: " + ("; ".join(missed) if missed else "none"))
    if cpu:
        r = (f"{min(ratios):.3f} to {max(ratios):.3f}") if ratios else "- to -"
        print(f"worst: CPU {max(cpu):.0f} ms, RSS {max(rss):.0f} MB; CPU xtap/stap {r}")


if __name__ == "__main__":
    main()
