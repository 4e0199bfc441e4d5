#!/usr/bin/env python3
"""Sustained output from busy probes, xtap against SystemTap 4.8, in one VM boot.

The flood of issue 29: probes on every context switch, every vfs_read()
and every system call print a line each, while a shell loop runs cat and
ls for DURATION seconds. Both modules are built with -DSTP_NO_OVERLOAD
(the probes' rate alone must not end the session), and each tool's
collector writes into a file in the guest (-o /tmp/f) and runs the loop
as its -c command. The script also counts, in the same handler, how many
records its probes produced, and an end probe prints that count (into the
file and as a warning), so that written + dropped = produced can be
checked.

Per tool:
- records produced (the script's count, over the whole session: arming
  and disarming included), written (lines of the record's shape in the
  file; other lines are counted as damaged), written per second of the
  load and of the whole session, dropped as the collector reports it
  (xtap-run: "N output records (M bytes) were dropped"; stapio: "There
  were N transport failures", one per handler whose output did not fit),
  the share dropped and the share lost (not written, whether reported or
  not);
- the loop's iterations in DURATION seconds against the same loop with no
  tracer in the same boot (it runs before, between and after the tools;
  each tool is set against the mean of its two neighbours);
- the collector's peak resident memory (VmHWM of xtap-run or stapio,
  sampled every half second) and the output file's size at a quarter,
  half, three quarters and the end of the load, and at how many samples
  during the load it had grown: does the file grow while the load lasts?

--runner PATH runs the xtap side with another static xtap-run (default:
the build's); --runner-before PATH adds a column for a second one in the
same boot (an older runner, for a before/after), running the same module
or, with --runtime-before DIR, one built from DIR's runtime and tapsets
(XTAP_DATADIR=DIR: a checkout of the older tree, for when the fix changed
the kernel side too). Needs what bench/peers.py sets up for stap; without
stap, xtap's columns alone. stap's runtime is patched as bench/peers.py
says, and its first kernel.trace probe compiles its tracepoint query
modules (minutes, cached).

Usage: bench/output_flood.py BUILD_DIR [--duration D] [--runner PATH]
       [--runner-before PATH [--runtime-before DIR]] [--memory-mb N] [--only xtap,before,stap]
       [--system-map PATH] [--keep]
"""
import argparse
import os
import re
import shutil
import subprocess
import tempfile

import peers

# The issue's script, with the count. The count is a statistic rather than
# `n++`: an aggregate is per CPU in both tools, so the handlers take no
# global write lock, which under contention would skip handlers (counted
# as skipped, not produced) and in stap end the session at MAXSKIPPED.
# The end probe prints the count into the file and also warns it, since
# the warning travels on the control channel: the count survives an
# output stream that lost or garbled its last line (stap's did).
FLOOD_STP = """\
global produced
probe kernel.trace("sched:sched_switch"), kernel.function("vfs_read"), syscall.* {
  produced <<< 1
  printf("%s %d %s\\n", execname(), pid(), ppfunc())
}
probe end {
  printf("produced %d\\n", @count(produced))
  warn(sprintf("produced %d", @count(produced)))
}
"""

# The load: cat and ls in a loop until a timer says stop; the iteration
# count goes to a file, since the collector's output is not the loop's.
WORKLOAD_SH = """\
# workload.sh SECONDS: cat and ls in a loop; its iterations and its start
# and end (/proc/uptime, centiseconds) into /tmp/iters.
rm -f /tmp/stop /tmp/iters
read up rest < /proc/uptime; t0=${up%.*}${up#*.}
( sleep $1; : > /tmp/stop ) &
i=0
while [ ! -e /tmp/stop ]; do
  cat /proc/version > /dev/null
  ls / > /dev/null
  i=$((i + 1))
done
read up rest < /proc/uptime; t1=${up%.*}${up#*.}
echo "iterations=$i load_start_cs=$t0 load_end_cs=$t1" > /tmp/iters
"""

# One tool's run, in the guest: the collector in the background, its
# memory and the file's size sampled in the foreground with shell builtins
# (one fork a sample, for the size), then the counts. key=value lines.
RUN_SH = """\
# run.sh TOOL SECONDS
tool=$1 d=$2
load="sh /bench/workload.sh $d"
rm -f /tmp/f /tmp/iters /tmp/err
case $tool in
  bare) sh /bench/workload.sh $d; cat /tmp/iters; exit 0 ;;
  xtap) set -- xtap-run -o /tmp/f -c "$load" /bench/xtap_flood.ko ;;
  before) ko=/bench/before_flood.ko; [ -e $ko ] || ko=/bench/xtap_flood.ko
    set -- xtap-run-before -o /tmp/f -c "$load" $ko ;;
  stap) set -- staprun -o /tmp/f -c "$load" /bench/stap_flood.ko ;;
esac
read up rest < /proc/uptime; echo "start_cs=${up%.*}${up#*.}"
"$@" > /dev/null 2> /tmp/err &
pid=$!
while :; do
  st= rss=0 hwm=0
  if [ -r /proc/$pid/status ]; then
    while read k v rest; do
      case $k in State:) st=$v ;; VmRSS:) rss=$v ;; VmHWM:) hwm=$v ;; esac
    done < /proc/$pid/status
  fi
  [ -z "$st" ] || [ "$st" = Z ] && break
  size=0; [ -e /tmp/f ] && size=$(wc -c < /tmp/f)
  read up rest < /proc/uptime; t=${up%.*}${up#*.}
  echo "sample t_cs=$t bytes=$size rss_kb=$rss hwm_kb=$hwm"
  usleep 500000
done
wait $pid; rc=$?
read up rest < /proc/uptime; t=${up%.*}${up#*.}
echo "exit=$rc end_cs=$t"
dmesg | grep -q "Killed process $pid " && echo "oom=1"
# A collector that was killed leaves its -c loop running: wait for it.
n=0
while [ ! -e /tmp/iters ] && [ $n -lt 1200 ]; do usleep 100000; n=$((n + 1)); done
cat /tmp/iters
# Records are the lines of the script's shape ("comm pid function");
# anything else but the count's line is damaged output.
touch /tmp/f
echo "bytes=$(wc -c < /tmp/f) lines=$(wc -l < /tmp/f)" \
  "records=$(grep -a -c -E '^[^ ]* -?[0-9]+ [^ ]*$' /tmp/f)"
grep -a -o 'produced [0-9]*$' /tmp/f | tail -n 1
grep -a -E '^[^ ]* -?[0-9]+ [^ ]*$' /tmp/f | awk '{ n[$1]++ } END { for (c in n) print n[c], c }' |
  sort -rn | head -n 5 | sed 's/^/by_program: /'
grep -a -v -E '^[^ ]* -?[0-9]+ [^ ]*$|^produced [0-9]*$' /tmp/f | head -n 3 | tr -c '\n -~' '?' |
  sed 's/^/damaged: /'
sed 's/^/err: /' /tmp/err | tail -n 20
# A killed collector leaves its module loaded (stopped).
if [ $tool = stap ]; then rmmod stap_flood 2> /dev/null; else xtap-run --cleanup > /dev/null 2>&1; fi
rm -f /tmp/f
"""

COLUMNS = {"xtap": "xtap", "before": "xtap before", "stap": "stap 4.8"}


def parse(text):
    """The figures of one run.sh output; None when it printed none."""
    r = {"samples": [], "err": [], "damaged": [], "programs": []}
    for line in text.splitlines():
        if line.startswith("sample "):
            r["samples"].append({k: int(v) for k, v in (w.split("=") for w in line.split()[1:])})
        elif line.startswith("err: "):
            r["err"].append(line[5:])
        elif line.startswith("by_program: "):
            count, name = (line.split(None, 2)[1:] + [""])[:2]
            r["programs"].append((name, int(count)))
        elif line.startswith("damaged: "):
            r["damaged"].append(line[9:])
        elif line.startswith("produced "):
            r["produced"] = int(line.split()[1])
        else:
            for k, v in re.findall(r"(\w+)=(-?\d+)", line):
                r[k] = int(v)
    if "iterations" not in r:
        return None
    err = "\n".join(r["err"])
    r["count_in_file"] = "produced" in r
    m = re.search(r"WARNING: produced (\d+)", err)
    if m and "produced" not in r:
        r["produced"] = int(m.group(1))
    m = re.search(r"(\d+) output records \((\d+) bytes\) were dropped", err)
    if m:
        r["dropped"] = int(m.group(1))
    m = re.search(r"There were (\d+) transport failures", err)
    if m:
        r["dropped"] = int(m.group(1))
    if r.get("exit") == 0 and "dropped" not in r:
        r["dropped"] = 0  # neither collector says anything when nothing was lost
    m = re.search(r"skipped probes: (\d+)", err)
    r["skipped"] = int(m.group(1)) if m else 0
    if "records" in r:
        r["written"] = r["records"]
        r["bad_lines"] = r["lines"] - r["records"] - (1 if r["count_in_file"] else 0)
    r["peak_kb"] = max([s["hwm_kb"] for s in r["samples"]] + [0])
    if "start_cs" in r:
        t0, t1 = r["load_start_cs"], r["load_end_cs"]
        r["load_s"] = (t1 - t0) / 100
        r["arm_s"] = (t0 - r["start_cs"]) / 100
        r["stop_s"] = (r["end_cs"] - t1) / 100 if "end_cs" in r else None
        # The file's size at a quarter, half, three quarters and the end of
        # the load: the last sample at or before each point.
        sizes = []
        for frac in (0.25, 0.5, 0.75, 1.0):
            before = [x["bytes"] for x in r["samples"] if x["t_cs"] <= t0 + frac * (t1 - t0)]
            sizes.append(before[-1] if before else 0)
        r["sizes"] = sizes
        # Samples taken during the load at which the file had grown since
        # the previous sample: a collector that streams grows it at most.
        during = [x["bytes"] for x in r["samples"] if t0 <= x["t_cs"] <= t1]
        r["growth"] = (sum(b > a for a, b in zip(during, during[1:])), max(len(during) - 1, 0))
    return r


def build_modules(build, rel, work, tools, system_map, runtime_before):
    script = os.path.join(work, "flood.stp")
    open(script, "w").write(FLOOD_STP)
    built = {}
    xtap = [os.path.join(build, "cli/xtap"), "-p4", "-r", rel, "-D", "STP_NO_OVERLOAD=1"]
    if {"xtap", "before"} & set(tools):
        peers.sh(xtap + ["-m", "xtap_flood", script], cwd=work)
        built["xtap"] = os.path.join(work, "xtap_flood.ko")
    if "before" in tools and runtime_before:
        peers.sh(xtap + ["-m", "before_flood", script], cwd=work,
                 env=dict(os.environ, XTAP_DATADIR=os.path.abspath(runtime_before)))
        built["before"] = os.path.join(work, "before_flood.ko")
    if "stap" in tools:
        try:
            ko = peers.build_stap_module(rel, work, script, "stap_flood", options=["-DSTP_NO_OVERLOAD"],
                                         system_map=system_map)
        except subprocess.CalledProcessError as e:
            print("stap: rejected the flood script:\n" + e.stderr[-3000:])
            ko = None
        if ko:
            built["stap"] = ko
        else:
            tools.remove("stap")
    # The guest's root file system is in RAM: no DWARF.
    for k, ko in built.items():
        stripped = ko[:-3] + ".stripped.ko"
        peers.sh(["strip", "--strip-debug", "-o", stripped, ko])
        built[k] = stripped
    return built


def fmt(v, spec=",.0f"):
    if v is None:
        return "-"
    return format(v, spec[:-1]) + "%" if spec.endswith("%") else format(v, spec)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--duration", type=int, default=20, help="seconds of load per tool (20)")
    ap.add_argument("--runner", default="", help="static xtap-run for the xtap column (default: BUILD/cli/xtap-run)")
    ap.add_argument("--runner-before", default="", help="a second static xtap-run, measured as its own column")
    ap.add_argument("--runtime-before", default="",
                    help="with --runner-before: build its module from this tree's runtime and tapsets")
    ap.add_argument("--memory-mb", type=int, default=2048, help="guest memory (2048, as in issue 29)")
    ap.add_argument("--only", default="xtap,before,stap")
    ap.add_argument("--system-map", default="")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    rel = peers.find_kernel()
    runner = os.path.abspath(args.runner or os.path.join(build, "cli/xtap-run"))
    tools = [t for t in args.only.split(",") if t in COLUMNS]
    if "before" in tools and not args.runner_before:
        tools.remove("before")
    work = tempfile.mkdtemp(prefix="xtap-bench-flood-")
    d = args.duration
    print(f"kernel: {rel}; {d} s of load per tool; guest {args.memory_mb} MiB, 2 vCPUs; runner {runner}",
          flush=True)
    if "before" in tools:
        print(f"before: runner {os.path.abspath(args.runner_before)}, module "
              + (f"from the runtime in {os.path.abspath(args.runtime_before)}" if args.runtime_before
                 else "the xtap column's"), flush=True)

    built = build_modules(build, rel, work, tools, args.system_map, args.runtime_before)
    for name, text in (("workload.sh", WORKLOAD_SH), ("run.sh", RUN_SH)):
        open(os.path.join(work, name), "w").write(text)
    lines = [f"memory-mb {args.memory_mb}", "cpus 2", "boot-timeout 180", f"xtap-run {runner}",
             f"file /bench/workload.sh {work}/workload.sh", f"file /bench/run.sh {work}/run.sh"]
    lines += [f"file /bench/{k}_flood.ko {ko}" for k, ko in built.items()]
    if "before" in tools:
        lines.append(f"file /bin/xtap-run-before {os.path.abspath(args.runner_before)}")
    if "stap" in tools:
        lines += peers.stap_guest_files()
    # The runs drain and count after the load: allow for a slow collector.
    # The loop alone runs before and after each tool: the host's load moves
    # TCG's guest clock, so each tool is set against its neighbours.
    limit = 4 * d + 240
    jobs = [("bare0", "bare")]
    for i, t in enumerate(tools):
        jobs += [(t, t), (f"bare{i + 1}", "bare")]
    for name, kind in jobs:
        lines += [f"job {name}", f"command sh /bench/run.sh {kind} {d}", f"timeout {limit}"]
    out = peers.run_batch(build, rel, lines, work)

    res = {}
    for name, _ in jobs:
        path = os.path.join(out, name + ".out")
        text = open(path, errors="replace").read() if os.path.exists(path) else ""
        r = parse(text)
        if r is None:
            print(f"bench: no figures from {name}: {text.strip()[-300:]!r}")
        else:
            res[name] = r
    bare = [res[n]["iterations"] if n in res else None for n, k in jobs if k == "bare"]
    print(f"\nno tracer, loop iterations in {d} s before, between and after the tools: "
          + ", ".join(fmt(b) for b in bare))

    cols = [t for t in tools if t in res]
    for i, t in enumerate(tools):
        if t not in res:
            continue
        r = res[t]
        r["per_s"] = r["written"] / (r.get("load_s") or d) if "written" in r else None
        session = (r["end_cs"] - r["start_cs"]) / 100 if {"end_cs", "start_cs"} <= set(r) else 0
        r["per_session_s"] = r["written"] / session if "written" in r and session > 0 else None
        r["share"] = r["dropped"] / r["produced"] if r.get("produced") and "dropped" in r else None
        r["lost"] = 1 - r["written"] / r["produced"] if r.get("produced") and "written" in r else None
        near = [b for b in bare[i:i + 2] if b]
        r["bare"] = sum(near) / len(near) if near else None
        r["speed"] = r["iterations"] / r["bare"] if r["bare"] else None
        if {"written", "dropped", "produced"} <= set(r):
            r["unaccounted"] = r["produced"] - r["written"] - r["dropped"]
            r["balance"] = r["unaccounted"] == 0

    def sizes(r):
        return " ".join(f"{x / 1e6:.1f}" for x in r["sizes"]) if "sizes" in r else "-"

    rows = [
        ("records produced (the script's count)", lambda r: fmt(r.get("produced"))),
        ("records written (record lines in the file)", lambda r: fmt(r.get("written"))),
        ("other lines in the file (damaged)", lambda r: fmt(r.get("bad_lines"))),
        ("the end probe's count line in the file", lambda r: "yes" if r.get("count_in_file") else "NO"),
        ("written per second of load", lambda r: fmt(r.get("per_s"))),
        ("written per second of the whole session", lambda r: fmt(r.get("per_session_s"))),
        ("dropped (the collector's report)", lambda r: fmt(r.get("dropped"))),
        ("share dropped (reported / produced)", lambda r: fmt(None if r.get("share") is None else 100 * r["share"], ".1f%")),
        ("share lost (not written / produced)", lambda r: fmt(None if r.get("lost") is None else 100 * r["lost"], ".1f%")),
        ("written + dropped = produced", lambda r: {True: "yes", False: "NO", None: "-"}[r.get("balance")]),
        ("produced - written - dropped", lambda r: fmt(r.get("unaccounted"))),
        ("skipped probes", lambda r: fmt(r.get("skipped"))),
        ("loop iterations (no tracer: mean of neighbours)",
         lambda r: f"{r['iterations']} ({fmt(r.get('bare'))})"),
        ("loop speed against no tracer", lambda r: fmt(r.get("speed"), ".2f")),
        ("collector peak RSS (MB)", lambda r: fmt(r["peak_kb"] / 1024, ".1f")),
        ("file MB at 1/4, 1/2, 3/4, end of load", sizes),
        ("samples in the load with the file grown", lambda r: "%d of %d" % r["growth"] if "growth" in r else "-"),
        ("file MB at the collector's exit", lambda r: fmt(r.get("bytes", 0) / 1e6, ".1f")),
        ("seconds: start to load, load, load to exit",
         lambda r: f"{fmt(r.get('arm_s'), '.1f')} {fmt(r.get('load_s'), '.1f')} {fmt(r.get('stop_s'), '.1f')}"),
        ("collector exit status", lambda r: str(r.get("exit", "-")) + (" (OOM-killed)" if r.get("oom") else "")),
    ]
    table = [(what, [cell(res[t]) for t in cols]) for what, cell in rows]
    width = max(len(w) for w, _ in rows)
    cw = [max([len(COLUMNS[t])] + [len(c[i]) for _, c in table]) + 3 for i, t in enumerate(cols)]
    print(f"\n{'':<{width}}" + "".join(f"{COLUMNS[t]:>{w}}" for t, w in zip(cols, cw)))
    for what, cells in table:
        print(f"{what:<{width}}" + "".join(f"{c:>{w}}" for c, w in zip(cells, cw)))

    print("\nrecords written by program (the collector's own reads and writes are probed too):")
    for t in cols:
        print(f"  {COLUMNS[t]}: " + ", ".join(f"{n} {c:,}" for n, c in res[t]["programs"]))
    for t in cols:
        r = res[t]
        if r["err"]:
            print(f"\n{COLUMNS[t]}'s messages:\n  " + "\n  ".join(r["err"][-8:]))
        if r["damaged"]:
            print(f"{COLUMNS[t]}: lines that are not records, the first ones:\n  " +
                  "\n  ".join(repr(x) for x in r["damaged"]))
    print()
    for t in cols:
        r = res[t]
        if r.get("balance") is not None:
            print(f"{COLUMNS[t]}: written {r['written']} + dropped {r['dropped']} "
                  f"{'=' if r['balance'] else '!='} produced {r['produced']}")
        else:
            print(f"{COLUMNS[t]}: written + dropped = produced cannot be checked "
                  f"(the {'count' if 'produced' not in r else 'drop report'} is missing)")
    for x in ("xtap", "before"):
        if x in res and "stap" in res:
            a, b = res[x], res["stap"]
            def ratio(k):
                return fmt(a[k] / b[k], ".2f") if a.get(k) is not None and b.get(k) else "-"
            print(f"ratio {x}/stap: written per second {ratio('per_s')}, share dropped {ratio('share')}, "
                  f"share lost {ratio('lost')}, loop speed {ratio('speed')}, peak RSS {ratio('peak_kb')}")
    print("(TCG guest: emulated time; compare within this run only. Each tool's syscall.* "
          "has its own probe set, so produced counts differ.)")
    if args.keep:
        print("work directory:", work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return res


if __name__ == "__main__":
    main()
