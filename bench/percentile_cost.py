#!/usr/bin/env python3
"""Per-hit cost of `s <<< v` with and without a percentile sketch, in one VM boot.

Three xtap scripts on kernel.function("__do_sys_getppid") (an ftrace
entry, the cheapest attach, so that the statistic's share of a hit is as
large as it gets) with the same handler, `s <<< get_cycles() & 0xfffff`
(values spread over a million, so the sketch's buckets vary as a
latency's do), and different end probes:

  plain       @count(s), @avg(s): no histogram, no sketch
  percentile  @percentile(s, 99): the sketch (k = PERCENTILE_BITS, 4 unless --bits)
  hist_log    print(@hist_log(s)): the log histogram, for reference

A static guest workload times N getppid() calls (bench/workloads/
getppid_loop.c) bare and under each module; the cost per hit is the
difference. Then the statement alone, without the probe around it: a
begin probe times (in TSC cycles: the VM's local_clock() is jiffies) LOOP adds to a plain statistic, to one with a sketch,
and the loop with no add (the value computed all the same), in that
order and in reverse, in one module (`loop`). Rounds are interleaved and the median is reported. Under TCG
the nanoseconds are emulated: only the ratios, measured in one boot, mean
anything.

Usage: bench/percentile_cost.py BUILD_DIR [--calls N] [--rounds R] [--bits K]
"""
import argparse
import os
import re
import shutil
import statistics
import tempfile

import peers
from probe_cost import figure

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE = 'probe kernel.function("__do_sys_getppid") { s <<< get_cycles() & 0xfffff }\n'
ENDS = {
    "plain": 'probe end { printf("%d %d\\n", @count(s), @avg(s)) }',
    "percentile": 'probe end { printf("%d %d\\n", @count(s), @percentile(s, 99)) }',
    "hist_log": "probe end { print(@hist_log(s)) }",
}


LOOP = """global plain, pct
function fill(which, n) {
	t = get_cycles()
	for (i = 0; i < n; i++) {
		v = (i * 2654435761) & 0xfffff
		if (which == 1) plain <<< v
		else if (which == 2) pct <<< v
	}
	return get_cycles() - t
}
probe begin {
	n = %d
	e1 = fill(0, n); a1 = fill(1, n); b1 = fill(2, n)
	b2 = fill(2, n); a2 = fill(1, n); e2 = fill(0, n)
	printf("loop empty=%%d plain=%%d percentile=%%d\\n", e1 + e2, a1 + a2, b1 + b2)
	printf("check %%d %%d %%d\\n", @count(plain), @count(pct), @percentile(pct, 99))
	exit()
}
"""


def build(build_dir, rel, work, bits, loop_n):
    modules = {}
    for name, end in ENDS.items():
        path = os.path.join(work, name + ".stp")
        open(path, "w").write("global s\n" + PROBE + end + "\n")
        cmd = [os.path.join(build_dir, "cli/xtap"), "-p4", "-r", rel, "-m", "pc_" + name, path]
        if bits:
            cmd[1:1] = ["-D", f"PERCENTILE_BITS={bits}"]
        peers.sh(cmd, cwd=work)
        modules[name] = os.path.join(work, f"pc_{name}.ko")
    path = os.path.join(work, "loop.stp")
    open(path, "w").write(LOOP % loop_n)
    cmd = [os.path.join(build_dir, "cli/xtap"), "-p4", "-r", rel, "-m", "pc_loop",
           "-D", "MAXACTION_INTERRUPTIBLE=100000000", "-D", "STP_NO_OVERLOAD=1", path]
    if bits:
        cmd[1:1] = ["-D", f"PERCENTILE_BITS={bits}"]
    peers.sh(cmd, cwd=work)
    return modules, os.path.join(work, "pc_loop.ko")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--calls", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bits", type=int, default=0, help="-D PERCENTILE_BITS (default: xtap's)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (modules, outputs)")
    ap.add_argument("--loop", type=int, default=200000, help="adds per timed loop in the begin probe")
    args = ap.parse_args()
    build_dir = os.path.abspath(args.build)
    rel = peers.find_kernel()
    work = tempfile.mkdtemp(prefix="xtap-bench-pct-")
    print(f"kernel: {rel}; {args.calls} getppid() calls per run, {args.rounds} rounds", flush=True)
    workload = os.path.join(work, "getppid_loop")
    peers.sh(["gcc", "-static", "-O2", "-o", workload, os.path.join(HERE, "workloads/getppid_loop.c")])
    modules, loop_ko = build(build_dir, rel, work, args.bits, args.loop)
    cmd = f"getppid_loop {args.calls}"
    lines = [f"file /usr/bin/getppid_loop {workload}", "memory-mb 1024", "cpus 2", "boot-timeout 180"]
    for r in range(args.rounds):
        lines += [f"job bare{r}", f"command {cmd}", "timeout 300"]
        for name, ko in modules.items():
            lines += [f"job {name}{r}", f"module {ko}", f"command {cmd}", "timeout 300"]
        lines += [f"job loop{r}", f"module {loop_ko}", "command true", "timeout 300"]
    out = peers.run_batch(build_dir, rel, lines, work)

    def med(job):
        values = [v for v in (figure(out, f"{job}{r}") for r in range(args.rounds)) if v is not None]
        return statistics.median(values) if values else None

    bare = med("bare")
    print(f"\nbare getppid(): {bare:.1f} ns per call (median of {args.rounds})")
    cost = {name: med(name) - bare for name in modules}
    for name in modules:
        print(f"{name:<11} {cost[name]:8.1f} ns per hit   ratio to plain {cost[name] / cost['plain']:.3f}")
    print(f"\npercentile/plain = {cost['percentile'] / cost['plain']:.3f} (goal: <= 1.10)")
    loops = []
    for r in range(args.rounds):
        path = os.path.join(out, f"loop{r}.out")
        m = re.search(r"loop empty=(\d+) plain=(\d+) percentile=(\d+)", open(path).read()) if os.path.exists(path) else None
        if m:
            loops.append([int(x) for x in m.groups()])
    if loops:
        n = 2 * args.loop
        empty, plain, pct = (statistics.median(col) / n for col in zip(*loops))
        print(f"\nthe statement alone ({n} adds per round, median of {len(loops)}; TSC cycles, as the "
              f"clock is jiffies in the VM): loop {empty:.1f}, "
              f"s <<< v {plain - empty:.1f} plain, {pct - empty:.1f} with the sketch: "
              f"ratio {(pct - empty) / (plain - empty):.3f}")
    path = os.path.join(out, "plain0.out")
    m = re.search(r"^(\d+) ", open(path).read(), re.M) if os.path.exists(path) else None
    print(f"hits counted by the plain module in round 0: {m.group(1) if m else '?'} (of {args.calls} calls)")
    print("(TCG guest: emulated time; compare within this run only)")
    if args.keep:
        print(f"kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
