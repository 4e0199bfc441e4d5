#!/usr/bin/env python3
"""Attaching to many kernel functions at once: xtap, SystemTap 4.8 and bpftrace.

In one VM boot, for probes on every function of a set of source files
(about 400, 1,700 and 6,000 functions):
- start: from the runner's start (xtap-run, staprun, bpftrace) to its -c
  command's first instruction: loading the module and arming every probe;
- stop: from the command's exit to the runner's exit: disarming every
  probe and unloading the module.
bench/workloads/session_clock.c does the timing, as in bench/start_stop.py.
bpftrace has no source-file wildcard: it runs `kprobe:vfs_*` (and its own
count of functions) as the reference for the kernel's batch attach.

Then the cost of one hit on `__do_sys_getppid` (bench/workloads/getppid_loop.c)
with that probe alone and with the probes of the second set armed beside it:
dispatching by address must not get dearer with more functions armed.

Usage: bench/mass_attach.py BUILD_DIR [--rounds R] [--only xtap,stap,bpftrace]
       [--sets namei,ext4,fs] [--stap-sets namei,ext4] [--kernel REL] [--install]
"""
import argparse
import os
import re
import shlex
import shutil
import statistics
import tempfile

import peers

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = ["xtap", "stap", "bpftrace"]
# name -> the kernel.function pattern (xtap and stap)
SETS = {
    "namei": "*@fs/namei.c",
    "ext4": "*@fs/ext4/*.c",
    "fs": "*@fs/*.c",
}
BPFTRACE_PROBE = "kprobe:vfs_*"
COST_CALLS = 100000
COST_ROUNDS = 3


def script(pattern):
    return f'global n\nprobe kernel.function("{pattern}") {{ n++ }}\n'


def cost_script(extra):
    s = 'probe kernel.function("__do_sys_getppid") { }\n'
    if extra:
        s += f'probe kernel.function("{extra}") {{ }}\n'
    return s


def build_modules(build, rel, work, tools, sets, stap_sets, system_map):
    built = {}
    for name in sets:
        path = os.path.join(work, name + ".stp")
        open(path, "w").write(script(SETS[name]))
        if "xtap" in tools:
            peers.sh([os.path.join(build, "cli/xtap"), "-p4", "-r", rel, "-m", "x_" + name, path], cwd=work)
            built[("xtap", name)] = os.path.join(work, f"x_{name}.ko")
        if "stap" in tools and name in stap_sets:
            ko = peers.build_stap_module(rel, work, path, "s_" + name, system_map=system_map)
            if ko and os.path.exists(ko):
                built[("stap", name)] = ko
        print(f"built {name}", flush=True)
    if "xtap" in tools:
        for tag, extra in (("cost1", ""), ("costn", SETS["ext4"])):
            path = os.path.join(work, tag + ".stp")
            open(path, "w").write(cost_script(extra))
            peers.sh([os.path.join(build, "cli/xtap"), "-p4", "-r", rel, "-m", "x_" + tag, path], cwd=work)
            built[("xtap", tag)] = os.path.join(work, f"x_{tag}.ko")
    return built


def job(tool, name, built):
    stamp = "session_clock stamp /tmp/st"
    wrap = "session_clock run /tmp/st"
    if tool == "bpftrace":
        prog = f"{BPFTRACE_PROBE} {{ @n = count(); }}"
        return f"{wrap} bpftrace -q -c {shlex.quote(stamp)} -e {shlex.quote(prog)}"
    ko = os.path.basename(built[(tool, name)])
    runner = "xtap-run" if tool == "xtap" else "staprun"
    return f"{wrap} {runner} -c {shlex.quote(stamp)} /bench/{ko}"


def read(out, name, pattern):
    path = os.path.join(out, name + ".out")
    text = open(path).read() if os.path.exists(path) else ""
    m = re.search(pattern, text)
    if not m:
        err = os.path.join(out, name + ".err")
        err = open(err).read().strip()[-300:] if os.path.exists(err) else ""
        print(f"bench: no figure from {name}: {err!r}")
        return None
    return [float(g) for g in m.groups()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--system-map", default="")
    ap.add_argument("--only", default=",".join(TOOLS))
    ap.add_argument("--sets", default=",".join(SETS))
    # stap's pass 2 and compile of ~9,000 probes take many minutes on 2 cores.
    ap.add_argument("--stap-sets", default="namei,ext4")
    ap.add_argument("--kernel", default="")
    ap.add_argument("--install", action="store_true")
    args = ap.parse_args()
    if args.install:
        peers.install()
    build = os.path.abspath(args.build)
    rel = args.kernel or peers.find_kernel()
    tools = [t for t in args.only.split(",") if t in TOOLS]
    sets = [s for s in args.sets.split(",") if s in SETS]
    if "bpftrace" in tools and not peers.bpftrace_available():
        print("bpftrace: not installed: no bpftrace figures")
        tools.remove("bpftrace")
    work = tempfile.mkdtemp(prefix="xtap-bench-mass-")
    print(f"kernel: {rel}; {args.rounds} rounds; tools: {', '.join(tools)}; sets: {', '.join(sets)}", flush=True)

    clock = os.path.join(work, "session_clock")
    loop = os.path.join(work, "getppid_loop")
    peers.sh(["gcc", "-static", "-O2", "-o", clock, os.path.join(HERE, "workloads/session_clock.c")])
    peers.sh(["gcc", "-static", "-O2", "-o", loop, os.path.join(HERE, "workloads/getppid_loop.c")])
    built = build_modules(build, rel, work, tools, sets, args.stap_sets.split(","), args.system_map)
    if "stap" in tools and not any(k[0] == "stap" for k in built):
        tools.remove("stap")
    lines = [f"file /usr/bin/session_clock {clock}", f"file /usr/bin/getppid_loop {loop}",
             "memory-mb 2048", "cpus 2", "boot-timeout 180"]
    lines += [f"file /bench/{os.path.basename(ko)} {ko}" for ko in built.values()]
    if "stap" in tools:
        lines += peers.stap_guest_files()
    if "bpftrace" in tools:
        lines += peers.bpftrace_guest_files()
    for r in range(args.rounds):
        for name in sets:
            for t in tools:
                if (t == "bpftrace" and name != sets[0]) or (t, name) not in built and t != "bpftrace":
                    continue
                lines += [f"job {t}_{name}_{r}", f"command {job(t, name, built)}", "timeout 600"]
    # Single TCG runs of one module differ by far more than the cost looked
    # for (docs/performance.md): several runs each, interleaved, the minimum.
    for r in range(max(args.rounds, COST_ROUNDS)):
        if "xtap" in tools:
            cmd = f"getppid_loop {COST_CALLS}"
            lines += [f"job bare_{r}", f"command {cmd}", "timeout 300"]
            for tag in ("cost1", "costn"):
                lines += [f"job {tag}_{r}", f"module {built[('xtap', tag)]}", f"command {cmd}", "timeout 600"]
    out = peers.run_batch(build, rel, lines, work)

    clock_re = r"start_ms=([0-9.]+) stop_ms=([0-9.]+)"
    print(f"\n{'set':<8}{'pattern':<16}{'tool':<10}{'start ms':>10}{'stop ms':>10}")
    results = {}
    for name in sets:
        for t in tools:
            if t == "bpftrace" and name != sets[0]:
                continue
            runs = [f for f in (read(out, f"{t}_{name}_{r}", clock_re) for r in range(args.rounds)) if f]
            label = BPFTRACE_PROBE if t == "bpftrace" else SETS[name]
            if not runs:
                print(f"{name:<8}{label:<16}{t:<10}{'-':>10}{'-':>10}")
                continue
            start = statistics.median(x[0] for x in runs)
            stop = statistics.median(x[1] for x in runs)
            results[(name, t)] = (start, stop)
            print(f"{name:<8}{label:<16}{t:<10}{start:>10.0f}{stop:>10.0f}")
    for name in sets:
        x = results.get((name, "xtap"))
        for t in ("stap", "bpftrace"):
            p = results.get((name, t)) or (results.get((sets[0], t)) if t == "bpftrace" else None)
            if x and p and p[0] > 0 and p[1] > 0:
                print(f"{name}: xtap/{t} start {x[0] / p[0]:.2f}, stop {x[1] / p[1]:.2f}")
    if "xtap" in tools:
        ns = r"ns_per_call=([0-9.]+)"
        n = max(args.rounds, COST_ROUNDS)
        per = {tag: [f[0] for f in (read(out, f"{tag}_{r}", ns) for r in range(n)) if f]
               for tag in ("bare", "cost1", "costn")}
        if all(per.values()):
            bare = min(per["bare"])
            one = min(per["cost1"]) - bare
            many = min(per["costn"]) - bare
            print(f"\ncost per hit on __do_sys_getppid (minimum of {n} runs): alone {one:.0f} ns, "
                  f"with {SETS['ext4']} armed {many:.0f} ns; ratio many/one: {many / one:.2f}")
    print("\n(TCG guest: emulated time; compare within this run only)")
    shutil.rmtree(work, ignore_errors=True)
    return results


if __name__ == "__main__":
    main()
