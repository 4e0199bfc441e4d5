#!/usr/bin/env python3
"""Probe cost per hit: xtap, SystemTap 4.8 and bpftrace 0.17 side by side in one VM boot.

Three attach points times three handlers, each tool running its own
spelling of the same probe:

  attach      xtap and stap                               bpftrace
  entry       kernel.function("__do_sys_getppid")        kprobe:__do_sys_getppid
  return      kernel.function("__do_sys_getppid").return kretprobe:__do_sys_getppid
  tracepoint  kernel.trace("raw_syscalls:sys_enter")      tracepoint:raw_syscalls:sys_enter

  handler     xtap and stap                               bpftrace
  empty       { }                                         { }
  count       { c[execname()]++ }                         { @c[comm] = count(); }
  stat        { s <<< pid() }                             { @s = stats(pid); }

The function is __do_sys_getppid, an ordinary traceable function (its
__fentry__ site is in ftrace's table), as most probed functions are; the
syscall wrapper __x64_sys_getppid is not traceable, so every tool must
put an int3 kprobe on it.

A static guest workload times N getppid() calls (bench/workloads/
getppid_loop.c) bare and under each probe; the cost per hit is the
difference. Rounds are interleaved and the median is reported. Under TCG
the nanoseconds are emulated: only the ratios, measured in one boot, mean
anything. stap elides a probe with an empty body, so its empty-handler
scripts are built with -u (no optimisation); the others print their
results in an end probe, so nothing is elided. bpftrace's count() and
stats() are its idiomatic per-CPU aggregations.

Usage: bench/probe_cost.py BUILD_DIR [--calls N] [--rounds R] [--system-map PATH]
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

HERE = os.path.dirname(os.path.abspath(__file__))

ATTACH = {
    "entry": ('kernel.function("__do_sys_getppid")', "kprobe:__do_sys_getppid"),
    "return": ('kernel.function("__do_sys_getppid").return', "kretprobe:__do_sys_getppid"),
    "tracepoint": ('kernel.trace("raw_syscalls:sys_enter")', "tracepoint:raw_syscalls:sys_enter"),
}
HANDLER = {
    "empty": ("{ }", "", "{ }"),
    "count": ("{ c[execname()]++ }", 'probe end { foreach (k in c) printf("%s %d\\n", k, c[k]) }',
              "{ @c[comm] = count(); }"),
    "stat": ("{ s <<< pid() }", 'probe end { printf("%d\\n", @count(s)) }', "{ @s = stats(pid); }"),
}
TOOLS = ("xtap", "stap", "bpftrace")


def cells():
    return [(a, h) for a in ATTACH for h in HANDLER]


def stap_script(attach, handler):
    probe, _ = ATTACH[attach]
    body, end, _ = HANDLER[handler]
    globals_ = {"count": "global c\n", "stat": "global s\n"}.get(handler, "")
    return f"{globals_}probe {probe} {body}\n{end}\n"


def bpftrace_program(attach, handler):
    return f"{ATTACH[attach][1]} {HANDLER[handler][2]}"


def build_all(build, rel, work, tools, system_map):
    """{(tool, attach, handler): guest job command or module path}."""
    built = {}
    for attach, handler in cells():
        name = f"{attach}_{handler}"
        path = os.path.join(work, name + ".stp")
        open(path, "w").write(stap_script(attach, handler))
        if "xtap" in tools:
            peers.sh([os.path.join(build, "cli/xtap"), "-p4", "-r", rel, "-m", "x_" + name, path], cwd=work)
            built[("xtap", attach, handler)] = os.path.join(work, f"x_{name}.ko")
        if "stap" in tools:
            opts = ["-u"] if handler == "empty" else []
            ko = peers.build_stap_module(rel, work, path, "s_" + name, opts, system_map=system_map)
            if ko:
                built[("stap", attach, handler)] = ko
        print(f"built {name}", flush=True)
    return built


def manifest_lines(built, tools, calls, rounds):
    cmd = f"getppid_loop {calls}"
    lines = ["memory-mb 2048", "cpus 2", "boot-timeout 180"]
    if any(k[0] == "stap" for k in built):
        lines += peers.stap_guest_files()
        lines += [f"file /bench/{os.path.basename(ko)} {ko}" for k, ko in built.items() if k[0] == "stap"]
    if "bpftrace" in tools:
        lines += peers.bpftrace_guest_files()
    for r in range(rounds):
        lines += [f"job bare{r}", f"command {cmd}", "timeout 300"]
        for attach, handler in cells():
            cell = f"{attach}_{handler}"
            if ("xtap", attach, handler) in built:
                lines += [f"job xtap_{cell}_{r}", f"module {built[('xtap', attach, handler)]}",
                          f"command {cmd}", "timeout 300"]
            if ("stap", attach, handler) in built:
                ko = os.path.basename(built[("stap", attach, handler)])
                lines += [f"job stap_{cell}_{r}", f"command staprun -c '{cmd}' /bench/{ko}", "timeout 300"]
            if "bpftrace" in tools:
                prog = bpftrace_program(attach, handler)
                lines += [f"job bpftrace_{cell}_{r}",
                          f"command bpftrace -q -c {shlex.quote(cmd)} -e {shlex.quote(prog)}", "timeout 300"]
    return lines


def figure(out, job):
    path = os.path.join(out, job + ".out")
    text = open(path).read() if os.path.exists(path) else ""
    m = re.search(r"ns_per_call=([0-9.]+)", text)
    if not m:
        err = os.path.join(out, job + ".err")
        err = open(err).read().strip()[-300:] if os.path.exists(err) else ""
        print(f"bench: no figure from {job}: {err!r}")
        return None
    return float(m.group(1))


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--calls", type=int, default=100000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--system-map", default="")
    ap.add_argument("--only", default=",".join(TOOLS))
    ap.add_argument("--install", action="store_true", help="apt-get systemtap and bpftrace when missing")
    args = ap.parse_args()
    if args.install:
        peers.install()
    build = os.path.abspath(args.build)
    rel = peers.find_kernel()
    tools = [t for t in args.only.split(",") if t in TOOLS]
    if "bpftrace" in tools and not peers.bpftrace_available():
        print("bpftrace: not installed (apt-get install bpftrace): no bpftrace figures")
        tools.remove("bpftrace")
    work = tempfile.mkdtemp(prefix="xtap-bench-cost-")
    print(f"kernel: {rel}; {args.calls} getppid() calls per run, {args.rounds} rounds; tools: {', '.join(tools)}",
          flush=True)

    workload = os.path.join(work, "getppid_loop")
    peers.sh(["gcc", "-static", "-O2", "-o", workload, os.path.join(HERE, "workloads/getppid_loop.c")])
    built = build_all(build, rel, work, tools, args.system_map)
    if "stap" in tools and not any(k[0] == "stap" for k in built):
        tools.remove("stap")
    lines = [f"file /usr/bin/getppid_loop {workload}"] + manifest_lines(built, tools, args.calls, args.rounds)
    out = peers.run_batch(build, rel, lines, work)

    bare = median(figure(out, f"bare{r}") for r in range(args.rounds))
    print(f"\nbare getppid(): {bare:.1f} ns per call (median of {args.rounds})")
    print("cost per hit in ns (probed minus bare), median of the rounds; ratio = xtap / peer\n")
    header = f"{'attach':<11} {'handler':<7}" + "".join(f"{t:>12}" for t in tools)
    header += "".join(f"{'x/' + t:>12}" for t in tools if t != "xtap")
    print(header)
    results = {}
    for attach, handler in cells():
        row = f"{attach:<11} {handler:<7}"
        costs = {}
        for t in tools:
            m = median(figure(out, f"{t}_{attach}_{handler}_{r}") for r in range(args.rounds))
            costs[t] = None if m is None else m - bare
            row += f"{costs[t]:>12.0f}" if costs[t] is not None else f"{'-':>12}"
        for t in tools:
            if t == "xtap":
                continue
            ok = costs.get("xtap") is not None and costs[t] and costs[t] > 0
            row += f"{costs['xtap'] / costs[t]:>12.2f}" if ok else f"{'-':>12}"
        results[(attach, handler)] = costs
        print(row)
    print("\n(TCG guest: emulated time; compare within this run only)")
    shutil.rmtree(work, ignore_errors=True)
    return results


if __name__ == "__main__":
    main()
