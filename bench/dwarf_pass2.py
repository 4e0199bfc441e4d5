#!/usr/bin/env python3
"""Pass-2 time with DWARF debuginfo, xtap against SystemTap 4.8, same scripts, same vmlinux.

Each script is elaborated with `xtap -p2` and `stap -p2` for the 6.1 cloud
kernel whose -dbg package is installed (/usr/lib/debug/boot/vmlinux-KVER).
xtap is timed cold (its DWARF function index not cached yet: the
<cache>/dwarf/ directory is emptied first) and warm (index cached); stap has
no such cache and is timed the same way twice. The vmlinux is read once
before timing, so both find it in the page cache: "cold" is about xtap's
index, not the disk. Each figure is the median of ROUNDS runs.

Usage: bench/dwarf_pass2.py BUILD_DIR [--rounds N]
"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import time

SCRIPTS = {
    "socket.c pattern": 'probe kernel.function("*@net/socket.c").call { printf("%s -> %s\\n", thread_indent(1), ppfunc()) }\n'
                        'probe kernel.function("*@net/socket.c").return { printf("%s <- %s\\n", thread_indent(-1), ppfunc()) }\n',
    "one function, $params": 'probe kernel.function("vfs_read@fs/read_write.c") { println($count) }\n',
    "statement :*": 'probe kernel.statement("vfs_read@fs/read_write.c:*") { println(pp()) }\n',
}


def find_release():
    for path in sorted(glob.glob("/usr/lib/debug/boot/vmlinux-6.1.*-cloud-amd64")):
        return path[len("/usr/lib/debug/boot/vmlinux-"):], path
    sys.exit("bench: no 6.1 cloud kernel debuginfo (linux-image-KVER-dbg; scripts/bootstrap.sh)")


def timed(cmd, env=None):
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.monotonic() - start
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir")
    ap.add_argument("--rounds", type=int, default=3)
    o = ap.parse_args()
    xtap = os.path.join(o.build_dir, "cli", "xtap")
    rel, vmlinux = find_release()
    with open(vmlinux, "rb") as f:  # into the page cache for both tools
        while f.read(1 << 24):
            pass
    cache = os.environ.get("XTAP_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "xtap")
    stap = shutil.which("stap")
    work = os.path.join(o.build_dir, "bench-dwarf")
    os.makedirs(work, exist_ok=True)
    print(f"kernel {rel}, debuginfo {vmlinux}, {o.rounds} rounds, median seconds")
    print(f"{'script':24} {'xtap cold':>10} {'xtap warm':>10} {'stap':>8} {'stap/xtap warm':>15}")
    for name, text in SCRIPTS.items():
        script = os.path.join(work, name.replace(" ", "_").replace("$", "").replace(":", "").replace(",", "") + ".stp")
        with open(script, "w") as f:
            f.write(text)
        cold, warm, st = [], [], []
        for _ in range(o.rounds):
            shutil.rmtree(os.path.join(cache, "dwarf"), ignore_errors=True)
            cold.append(timed([xtap, "-p2", "-r", rel, script]))
            warm.append(timed([xtap, "-p2", "-r", rel, script]))
            if stap:
                st.append(timed([stap, "-p2", "-r", rel, script]))
        c, w = statistics.median(cold), statistics.median(warm)
        s = statistics.median(st) if st else None
        print(f"{name:24} {c:10.2f} {w:10.2f} " + (f"{s:8.2f} {s / w:15.1f}" if s else f"{'-':>8} {'-':>15}"))


if __name__ == "__main__":
    main()
