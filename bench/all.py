#!/usr/bin/env python3
"""Every benchmark of issue 10 in one command, and one table of ratios at the end.

    python3 bench/all.py build [--install] [--quick]

Installs the peers when asked (--install: Debian's systemtap and bpftrace,
bench/peers.py), then runs, each with its own VM boot where it needs one:

  build_latency.py     xtap -p4 against stap -p4 of a new script (host)
  pass2.py             xtap -p2 against stap -p2, CPU and peak RSS per script (host)
  probe_cost.py        cost per hit, 3 attach points x 3 handlers (one boot)
  start_stop.py        session start and stop, module size (one boot)
  mass_attach.py       arming and disarming ~400 to ~6,000 functions (one boot)
  output_throughput.py 200,000 printf lines through each runner (one boot)
  output_flood.py      sustained output from busy probes for 20 s (one boot)

Each prints its own figures as it goes; the summary collects the ratios
(xtap / peer: below 1, xtap is cheaper). --quick runs fewer rounds and
calls, for a look rather than a record. The peers run with the
adjustments bench/peers.py states: stap's runtime patched for the 6.1
stable kernels' task_work_cancel_func(), and the -dbg package's System.map.
"""
import argparse
import os
import re
import subprocess
import sys

import peers

HERE = os.path.dirname(os.path.abspath(__file__))


def run(name, args):
    print(f"\n===== {name} {' '.join(args)}", flush=True)
    p = subprocess.run([sys.executable, os.path.join(HERE, name), *args], capture_output=True, text=True)
    sys.stdout.write(p.stdout)
    if p.returncode:
        sys.stdout.write(p.stderr[-2000:])
        print(f"===== {name} failed ({p.returncode})")
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--install", action="store_true")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.install:
        peers.install()
    build = os.path.abspath(args.build)
    rounds = ["--rounds", "1" if args.quick else "3"]
    rows = []

    out = run("build_latency.py", [build, *rounds])
    m = re.search(r"xtap new script / stap new script: wall ([0-9.]+), CPU ([0-9.]+)", out)
    if m:
        rows.append(("build a new script (runtime cached)", "stap", f"wall {m.group(1)}, CPU {m.group(2)}"))
    m = re.search(r"xtap cold / stap cold: wall ([0-9.]+), CPU ([0-9.]+)", out)
    if m:
        rows.append(("build the first script (empty caches)", "stap", f"wall {m.group(1)}, CPU {m.group(2)}"))

    out = run("pass2.py", [build, *rounds])
    m = re.search(r"^worst: CPU ([0-9]+) ms, RSS ([0-9]+) MB; CPU xtap/stap ([0-9.]+|-) to ([0-9.]+|-)$", out, re.M)
    if m:
        rows.append(("pass 2, warm caches: CPU of the dearest script (goal 100 ms)", "-", f"{m.group(1)} ms"))
        rows.append(("pass 2, warm caches: peak RSS of the largest (goal 150 MB)", "-", f"{m.group(2)} MB"))
        rows.append(("pass 2, warm caches: CPU, range over the scripts", "stap", f"{m.group(3)} to {m.group(4)}"))

    out = run("probe_cost.py", [build, *rounds, "--calls", "20000" if args.quick else "100000"])
    header = None
    for line in out.splitlines():
        if line.startswith("attach "):
            header = line.split()
            continue
        words = line.split()
        if header and len(words) == len(header) and words[0] in ("entry", "return", "tracepoint"):
            for col, value in zip(header[2:], words[2:]):
                if col.startswith("x/"):
                    rows.append((f"cost per hit: {words[0]}, {words[1]} handler", col[2:], value))

    out = run("start_stop.py", [build, *rounds])
    for m in re.finditer(r"^(\w+): xtap/(\w+) start ([0-9.]+), stop ([0-9.]+)$", out, re.M):
        rows.append((f"session start / stop: {m.group(1)}", m.group(2), f"{m.group(3)} / {m.group(4)}"))

    out = run("mass_attach.py", [build, "--rounds", "1"])
    for m in re.finditer(r"^(\w+): xtap/(\w+) start ([0-9.]+), stop ([0-9.]+)$", out, re.M):
        rows.append((f"arm / disarm many functions: {m.group(1)}", m.group(2), f"{m.group(3)} / {m.group(4)}"))
    m = re.search(r"ratio many/one: ([0-9.]+)", out)
    if m:
        rows.append(("cost per hit, ~1,700 functions armed / one armed", "xtap", m.group(1)))

    out = run("output_throughput.py", [build, *rounds])
    m = re.search(r"ratio xtap/stap time: ([0-9.]+)", out)
    if m:
        rows.append(("output: time for 200,000 printf lines", "stap", m.group(1)))

    out = run("output_flood.py", [build, "--duration", "5" if args.quick else "20"])
    m = re.search(r"ratio xtap/stap: written per second ([0-9.]+|-), share dropped ([0-9.]+|-), "
                  r"share lost ([0-9.]+|-), loop speed ([0-9.]+|-), peak RSS ([0-9.]+|-)", out)
    if m:
        rows.append(("flood: records written per second (above 1: xtap writes more)", "stap", m.group(1)))
        rows.append(("flood: share of records reported dropped", "stap", m.group(2)))
        rows.append(("flood: share of records not written", "stap", m.group(3)))
        rows.append(("flood: workload speed under the probes (above 1: xtap slows it less)", "stap", m.group(4)))
        rows.append(("flood: collector peak resident memory", "stap", m.group(5)))

    print("\n===== summary: xtap / peer (below 1: xtap is cheaper)")
    width = max((len(r[0]) for r in rows), default=10)
    for what, peer, ratio in rows:
        print(f"{what:<{width}}  {peer:<9} {ratio}")
    print("(kernel figures: TCG guest, emulated time; ratios hold within one run only)")


if __name__ == "__main__":
    main()
