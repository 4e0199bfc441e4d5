#!/usr/bin/env python3
"""Session start and stop: xtap, SystemTap 4.8 and bpftrace 0.17 in one VM boot.

For the `count` scripts of bench/probe_cost.py (one probe, one map, an end
probe that prints it), in the guest:
- start: from the runner's start (xtap-run, staprun, bpftrace) to its -c
  command's first instruction, that is until the probes are armed. xtap's
  and stap's modules are built beforehand, so this is loading and arming;
  bpftrace's includes compiling its program, which is how it starts;
- stop: from the command's exit to the runner's exit: the end probe, the
  output drained, the probes removed and (xtap, stap) the module unloaded;
- module: the traced module's size in /proc/modules while it runs (bpftrace
  loads no module).
bench/workloads/session_clock.c does the timing. Medians of the rounds;
the guest is a TCG VM, so only ratios within one run mean anything.

Usage: bench/start_stop.py BUILD_DIR [--rounds R] [--system-map PATH]
       [--only xtap,stap,bpftrace] [--install]
"""
import argparse
import os
import re
import shlex
import shutil
import statistics
import tempfile

import peers
import probe_cost

HERE = os.path.dirname(os.path.abspath(__file__))
CELLS = [("entry", "count"), ("return", "count"), ("tracepoint", "count")]


def job(tool, cell, r, built):
    stamp = "session_clock stamp /tmp/st"
    wrap = "session_clock run /tmp/st"
    if tool == "xtap":
        ko = os.path.basename(built[("xtap",) + cell])
        return f"{wrap} xtap-run -c {shlex.quote(stamp)} /bench/{ko}"
    if tool == "stap":
        ko = os.path.basename(built[("stap",) + cell])
        return f"{wrap} staprun -c {shlex.quote(stamp)} /bench/{ko}"
    prog = probe_cost.bpftrace_program(*cell)
    return f"{wrap} bpftrace -q -c {shlex.quote(stamp)} -e {shlex.quote(prog)}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--system-map", default="")
    ap.add_argument("--only", default=",".join(probe_cost.TOOLS))
    ap.add_argument("--install", action="store_true")
    args = ap.parse_args()
    if args.install:
        peers.install()
    build = os.path.abspath(args.build)
    rel = peers.find_kernel()
    tools = [t for t in args.only.split(",") if t in probe_cost.TOOLS]
    if "bpftrace" in tools and not peers.bpftrace_available():
        print("bpftrace: not installed: no bpftrace figures")
        tools.remove("bpftrace")
    work = tempfile.mkdtemp(prefix="xtap-bench-session-")
    print(f"kernel: {rel}; {args.rounds} rounds; tools: {', '.join(tools)}", flush=True)

    clock = os.path.join(work, "session_clock")
    peers.sh(["gcc", "-static", "-O2", "-o", clock, os.path.join(HERE, "workloads/session_clock.c")])
    built = {}
    for attach, handler in CELLS:
        name = f"{attach}_{handler}"
        path = os.path.join(work, name + ".stp")
        open(path, "w").write(probe_cost.stap_script(attach, handler))
        if "xtap" in tools:
            peers.sh([os.path.join(build, "cli/xtap"), "-p4", "-r", rel, "-m", "x_" + name, path], cwd=work)
            built[("xtap", attach, handler)] = os.path.join(work, f"x_{name}.ko")
        if "stap" in tools:
            ko = peers.build_stap_module(rel, work, path, "s_" + name, system_map=args.system_map)
            if not ko:
                tools.remove("stap")
            else:
                built[("stap", attach, handler)] = ko
    lines = [f"file /usr/bin/session_clock {clock}", "memory-mb 2048", "cpus 2", "boot-timeout 180"]
    lines += [f"file /bench/{os.path.basename(ko)} {ko}" for ko in built.values()]
    if "stap" in tools:
        lines += peers.stap_guest_files()
    if "bpftrace" in tools:
        lines += peers.bpftrace_guest_files()
    for r in range(args.rounds):
        for cell in CELLS:
            for t in tools:
                lines += [f"job {t}_{cell[0]}_{r}", f"command {job(t, cell, r, built)}", "timeout 300"]
    out = peers.run_batch(build, rel, lines, work)

    def figures(name):
        text = open(os.path.join(out, name + ".out")).read() if os.path.exists(os.path.join(out, name + ".out")) else ""
        m = re.search(r"start_ms=([0-9.]+) stop_ms=([0-9.]+) module_bytes=(\d+)", text)
        if not m:
            print(f"bench: no figure from {name}: {text.strip()[-200:]!r}")
            return None
        return float(m.group(1)), float(m.group(2)), int(m.group(3))

    print(f"\n{'attach':<11}{'tool':<10}{'start ms':>10}{'stop ms':>10}{'module KiB':>12}")
    results = {}
    for cell in CELLS:
        for t in tools:
            runs = [f for f in (figures(f"{t}_{cell[0]}_{r}") for r in range(args.rounds)) if f]
            if not runs:
                print(f"{cell[0]:<11}{t:<10}{'-':>10}{'-':>10}{'-':>12}")
                continue
            start = statistics.median(x[0] for x in runs)
            stop = statistics.median(x[1] for x in runs)
            size = runs[0][2] // 1024 if t != "bpftrace" else 0
            results[(cell[0], t)] = (start, stop, size)
            print(f"{cell[0]:<11}{t:<10}{start:>10.0f}{stop:>10.0f}{(str(size) if size else '-'):>12}")
    for cell in CELLS:
        x = results.get((cell[0], "xtap"))
        for t in tools:
            p = results.get((cell[0], t))
            if t != "xtap" and x and p:
                print(f"{cell[0]}: xtap/{t} start {x[0] / p[0]:.2f}, stop {x[1] / p[1]:.2f}")
    print("\n(TCG guest: emulated time; compare within this run only)")
    shutil.rmtree(work, ignore_errors=True)
    return results


if __name__ == "__main__":
    main()
