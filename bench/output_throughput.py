#!/usr/bin/env python3
"""Output throughput, xtap against SystemTap 4.8, side by side in one VM boot.

One begin probe prints LINES formatted lines (output_throughput.stp); each
tool's runner collects them into a file in the guest. The figure is the
session's elapsed time in the guest (10 ms resolution), interleaved ROUNDS
times, median reported, and the ratio between the tools. Every run's output
is checked for completeness. Needs what bench/peers.py sets up for
stap (its set-up is reused).

Usage: bench/output_throughput.py BUILD_DIR [--lines N] [--rounds R] [--system-map PATH]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import peers as common

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--lines", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--system-map", default="")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    rel = common.find_kernel()
    work = tempfile.mkdtemp(prefix="xtap-bench-out-")
    script = os.path.join(HERE, "output_throughput.stp")
    maxaction = f"MAXACTION={args.lines * 3 + 100}"
    print(f"kernel: {rel}; {args.lines} lines per run, {args.rounds} rounds")

    common.sh([os.path.join(build, "cli/xtap"), "-p4", "-r", rel, "-m", "xtap_out", "-D", maxaction,
               script, str(args.lines)], cwd=work)
    stap_ko = None
    if common.build_stap(rel, args.system_map, work):  # builds the overhead module; reuse its set-up
        subprocess.run(["stap", "-p4", "-r", os.path.join(work, "kbuild"), "-R",
                        os.path.join(work, "stap-runtime"), "-m", "stap_out", "-D" + maxaction,
                        script, str(args.lines)], cwd=work, check=True, capture_output=True)
        stap_ko = os.path.join(work, "stap_out.ko")

    lines = ["memory-mb 1024", "cpus 2"]
    if stap_ko:
        lines.append(f"file /bench/stap_out.ko {stap_ko}")
        lines += common.stap_guest_files()
    # Output goes to a guest file: the data port would be the bottleneck.
    check = f"test $(wc -l < /tmp/o) -eq {args.lines} && echo complete"
    for r in range(args.rounds):
        lines += [f"job xtap{r}", f"module {os.path.join(work, 'xtap_out.ko')}", "arg -o", "arg /tmp/o",
                  "timeout 600"]
        lines += [f"job xcheck{r}", f"command {check}"]
        if stap_ko:
            lines += [f"job stap{r}", "command staprun -o /tmp/o /bench/stap_out.ko", "timeout 600"]
            lines += [f"job scheck{r}", f"command {check}"]
    manifest = os.path.join(work, "manifest")
    open(manifest, "w").write("\n".join(lines) + "\n")
    out = os.path.join(work, "out")
    if subprocess.run([os.path.join(build, "cli/xtap-vmbatch"), "--kernel", rel, manifest, out]).returncode:
        sys.exit(f"bench: the VM batch failed; see {out}")

    def elapsed(kind):
        vals = []
        for r in range(args.rounds):
            status = dict(l.split("=", 1) for l in open(os.path.join(out, f"{kind}{r}.status")).read().split())
            done = open(os.path.join(out, f"{kind[0]}check{r}.out")).read().strip()
            if status.get("exit") != "0" or done != "complete":
                sys.exit(f"bench: {kind}{r} failed or lost lines (exit {status.get('exit')}, check {done!r})")
            vals.append(int(status["elapsed_ms"]))
        return statistics.median(vals), vals

    x, xs = elapsed("xtap")
    mb = args.lines * 30 / 1e6
    print(f"xtap: {x:7.0f} ms  (~{mb / (x / 1000):.1f} MB/s; runs: {xs})")
    if stap_ko:
        s, ss = elapsed("stap")
        print(f"stap: {s:7.0f} ms  (~{mb / (s / 1000):.1f} MB/s; runs: {ss})")
        print(f"ratio xtap/stap time: {x / s:.2f} (below 1: xtap is faster)")
    print("(TCG guest: emulated time; compare within this run only)")


if __name__ == "__main__":
    main()
