#!/usr/bin/env python3
"""Build latency (pass 4): a script to a loadable .ko, xtap against SystemTap 4.8.

Figures, in seconds of wall-clock and of CPU (the command and its children;
on a shared machine the CPU figure is the steadier one), medians of ROUNDS,
for a four-probe script:
  xtap cold        empty cache: runtime, kernel catalog, recorded Kbuild
                   commands, then the module (one round)
  xtap new script  runtime cached, a script not built before (a constant in
                   it changes every round): the figure issue 10 asks to bring
                   to 0.1 of stap's
  xtap via Kbuild  the same with XTAP_KBUILD=make (the old path)
  xtap cached      the same script again (the module cache)
  stap cold        stap -p4 with an empty SYSTEMTAP_DIR, its first run
  stap new script  stap -p4 of a new script after that first run, when stap is
                   installed (not in CI): stap has no runtime cache, so this
                   is its warm figure

stap needs a copy of its runtime with task_work_cancel() changed to
task_work_cancel_func() on the 6.1 kernels (a stable backport changed its
signature); the script makes one and says so. Without stap only the xtap
figures are printed.

Usage: bench/build_latency.py BUILD_DIR [--kernel RELEASE] [--rounds R] [--no-cold]
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import peers

SCRIPT = """global n, hits
probe begin { printf("start %d\\n", CONST) }
probe kprobe.function("vfs_read") { hits[execname()]++ }
probe timer.ms(100) { n++ if (n > 3) exit() }
probe end { foreach (k in hits-) printf("%s %d\\n", k, hits[k]) }
"""


def find_kernel(wanted):
    if wanted:
        return wanted
    rels = [r for r in os.listdir("/lib/modules")
            if r.endswith("-cloud-amd64") and os.path.exists(f"/lib/modules/{r}/build/Makefile")]
    six_one = sorted(r for r in rels if r.startswith("6.1."))
    if six_one:
        return six_one[-1]
    if rels:
        return sorted(rels)[-1]
    sys.exit("bench: no cloud kernel with headers installed (scripts/bootstrap.sh)")


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, env=None, cwd=None):
    """(wall seconds, CPU seconds of the command and its children)"""
    start, cpu = time.monotonic(), cpu_seconds()
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    took = (time.monotonic() - start, cpu_seconds() - cpu)
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd[:6])} ... failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return took


def median(pairs):
    return (statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs))


def script_file(work, const):
    path = os.path.join(work, f"s{const}.stp")
    with open(path, "w") as f:
        f.write(SCRIPT.replace("CONST", str(const)))
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--kernel", default="")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-cold", action="store_true", help="skip the cold figure")
    ap.add_argument("--system-map", default="",
                    help="the kernel's real System.map for stap (default: the -dbg package's)")
    args = ap.parse_args()
    xtap = os.path.join(os.path.abspath(args.build), "cli", "xtap")
    rel = find_kernel(args.kernel)
    work = tempfile.mkdtemp(prefix="xtap-bench-build-")
    cache = os.path.join(work, "cache")
    env = dict(os.environ, XTAP_CACHE_DIR=cache)
    env.pop("XTAP_KBUILD", None)
    print(f"kernel: {rel}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; "
          f"medians of {args.rounds} rounds")
    const = 1000

    def xtap_p4(e, const):
        return timed([xtap, "-p4", "-r", rel, script_file(work, const)], env=e, cwd=work)

    rows = []
    if not args.no_cold:
        rows.append(("xtap cold (empty cache)", xtap_p4(env, const)))
    else:
        xtap_p4(env, const)  # warms the cache
    const += 1
    new = []
    for _ in range(args.rounds):
        new.append(xtap_p4(env, const))
        const += 1
    make_env = dict(env, XTAP_KBUILD="make")
    via_make = []
    for _ in range(args.rounds):
        via_make.append(xtap_p4(make_env, const))
        const += 1
    cached = [xtap_p4(env, const - 1) for _ in range(args.rounds)]
    xtap_new = median(new)
    rows += [("xtap new script", xtap_new),
             ("xtap new script via Kbuild (XTAP_KBUILD=make)", median(via_make)),
             ("xtap same script again (module cache)", median(cached))]

    stap_new = stap_cold = None
    system_map = args.system_map or f"/usr/lib/debug/boot/System.map-{rel}"
    if not shutil.which("stap"):
        print("stap: not installed (apt-get install systemtap): xtap figures only")
    elif not os.path.exists(system_map):
        print(f"stap: no real System.map for {rel} (--system-map; Debian's is in the -dbg "
              "package): xtap figures only")
    else:
        runtime = peers.stap_runtime(work, rel)
        stap_build = peers.stap_tree(rel, system_map, work)
        print(f"stap: -r {stap_build} (the headers plus {system_map})")
        stap_env = dict(os.environ, SYSTEMTAP_DIR=os.path.join(work, "stap-home"))

        def stap_p4(const):
            return timed(["stap", "-p4", "-r", stap_build, "-R", runtime, script_file(work, const)],
                         env=stap_env, cwd=work)

        # Its first run with an empty SYSTEMTAP_DIR is stap's cold figure
        # (stap keeps no runtime cache; this also warms the page cache).
        stap_cold = stap_p4(const)
        if not args.no_cold:
            rows.append(("stap 4.8 cold (empty SYSTEMTAP_DIR)", stap_cold))
        const += 1
        times = []
        for _ in range(args.rounds):
            times.append(stap_p4(const))
            const += 1
        stap_new = median(times)
        rows.append(("stap 4.8 new script", stap_new))

    width = max(len(r[0]) for r in rows)
    print(f"{'':<{width}}  {'wall':>7}    {'CPU':>7}")
    for name, (wall, cpu) in rows:
        print(f"{name:<{width}}  {wall:7.2f} s  {cpu:7.2f} s")
    if stap_new:
        print(f"xtap new script / stap new script: wall {xtap_new[0] / stap_new[0]:.2f}, "
              f"CPU {xtap_new[1] / stap_new[1]:.2f} (goal: 0.10 or less)")
    if stap_cold and not args.no_cold:
        xtap_cold = rows[0][1]
        print(f"xtap cold / stap cold: wall {xtap_cold[0] / stap_cold[0]:.2f}, "
              f"CPU {xtap_cold[1] / stap_cold[1]:.2f} (goal: 0.20 or less)")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
