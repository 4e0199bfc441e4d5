#!/usr/bin/env python3
"""Lifecycle soak (issue 11, docs/testing.md): start and stop sessions on hot
probes again and again while a multi-threaded workload runs, in one VM boot
per kernel, and check that nothing is left behind.

Four modules: a kprobe on getppid, the sched_switch tracepoint, a
kretprobe on vfs_read and a kernel.function entry through xtap's own
ftrace_ops, each counting hits into a global and a statistic.
The guest runs a workload of four processes (getppid calls and file reads)
for the whole batch, then CYCLES rounds of `xtap-run -T 0.2` over the four
modules. Checked: every session ends with exit 0 and a hit count above
zero; afterwards no xtap module is loaded, no xtap directory is left in
debugfs or /proc/xtap, the kprobe list holds no xtap probe, ftrace traces
no function (enabled_functions is empty), Slab (after
dropping caches) grew by less than 4 MiB, and the kernel log has no oops,
warning or lockup.

    python3 tests/reliability/soak_vm.py [--cycles N] [--kernel REL]

The default is 10 cycles (40 sessions) per kernel, which keeps CI short;
the issue's 100 are `--cycles 100`. Prints one line per check and ends with
"soak: N passed, N failed".
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNELS = ["6.1.0-56-cloud-amd64", "6.12.117+deb12-cloud-amd64"]

SCRIPTS = {
    "soak_kprobe": 'global n, s\nprobe kprobe.function("__x64_sys_getppid") { n++; s <<< pid() }\n'
                   'probe end { printf("hits %d\\n", n) }\n',
    "soak_trace": 'global n, s\nprobe kernel.trace("sched_switch") { n++; s <<< cpu() }\n'
                  'probe end { printf("hits %d\\n", n) }\n',
    "soak_kretprobe": 'global n, s\nprobe kprobe.function("vfs_read").return { n++; s <<< tid() }\n'
                      'probe end { printf("hits %d\\n", n) }\n',
    # kernel.function's entry through xtap's own ftrace_ops (probes/fentry.c)
    "soak_fentry": 'global n, s\nprobe kernel.function("__do_sys_getppid") { n++; s <<< pid() }\n'
                   'probe end { printf("hits %d\\n", n) }\n',
}

GUEST = r"""
slab() { echo 3 > /proc/sys/vm/drop_caches; sed -n 's/^Slab: *\([0-9]*\) kB/\1/p' /proc/meminfo; }
for i in 1 2; do ( while :; do getppid_n 2000; done ) & done
for i in 1 2; do ( while :; do cat /proc/version /proc/stat > /dev/null; done ) & done
sleep 1
# One warm-up round: the first sessions allocate what the kernel keeps
# (kprobe instances, relay's slab caches).
for m in soak_kprobe soak_trace soak_kretprobe soak_fentry; do xtap-run -T 0.2 /lib/xtap/$m.ko > /dev/null 2>&1; done
before=$(slab)
i=0
while [ $i -lt CYCLES ]; do
  for m in soak_kprobe soak_trace soak_kretprobe soak_fentry; do
    out=$(xtap-run -T 0.2 /lib/xtap/$m.ko 2>&1); rc=$?
    hits=$(echo "$out" | sed -n 's/^hits \([0-9]*\)$/\1/p')
    if [ $rc -ne 0 ] || [ -z "$hits" ] || [ "$hits" -eq 0 ]; then echo "BAD $m cycle $i rc=$rc: $out"; fi
  done
  i=$((i + 1))
done
kill $(jobs -p) 2>/dev/null; wait 2>/dev/null
sleep 1
after=$(slab)
echo "cycles $i"
echo "slab_kb $before $after"
echo "modules $(grep -c '^xtap_\|^soak_' /proc/modules)"
echo "debugfs $(ls /sys/kernel/debug | grep -c 'xtap\|soak')"
echo "procfs $(ls /proc/xtap 2>/dev/null | wc -l)"
echo "kprobes $(grep -c '__x64_sys_getppid\|vfs_read\|__do_sys_getppid' /sys/kernel/debug/kprobes/list 2>/dev/null)"
echo "ftrace $(grep -c . /sys/kernel/debug/tracing/enabled_functions 2>/dev/null)"
"""

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"), flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def soak(build, release, cycles, work):
    xtap = os.path.join(build, "cli", "xtap")
    files = []
    for name, text in SCRIPTS.items():
        src = os.path.join(work, name + ".stp")
        with open(src, "w") as f:
            f.write(text)
        r = run([xtap, "-p4", "-r", release, "-m", name, src], cwd=work)
        if r.returncode:
            check(f"{release}: build {name}", False, r.stderr[-1500:])
            return
        ko = os.path.join(work, name + ".ko")
        stripped = os.path.join(work, release + "-" + name + ".ko")
        run(["strip", "--strip-debug", "-o", stripped, ko], check=True)
        files.append(f"file /lib/xtap/{name}.ko {stripped}")
    getppid = os.path.join(work, "getppid_n")
    run(["gcc", "-static", "-O2", "-o", getppid, os.path.join(ROOT, "tests", "runtime", "workloads", "getppid_n.c")],
        check=True)
    files.append(f"file /usr/bin/getppid_n {getppid}")
    guest = os.path.join(work, "soak.sh")
    with open(guest, "w") as f:
        f.write(GUEST.replace("CYCLES", str(cycles)))
    files.append(f"file /usr/bin/soak.sh {guest}")
    manifest = os.path.join(work, f"{release}.batch")
    with open(manifest, "w") as f:
        f.write("\n".join(files + ["job soak", "command sh /usr/bin/soak.sh", f"timeout {60 + cycles * 16}"]) + "\n")
    out = os.path.join(work, release + "-out")
    r = run([os.path.join(build, "cli", "xtap-vmbatch"), "--kernel", release, manifest, out])
    if r.returncode not in (0, 1):
        check(f"{release}: VM batch", False, r.stderr.strip())
        return
    text = open(os.path.join(out, "soak.out")).read()
    status = open(os.path.join(out, "soak.status")).read()
    problems = open(os.path.join(out, "problems.txt")).read()
    vals = dict(re.findall(r"^(\w+) (.*)$", text, re.M))
    check(f"{release}: {cycles} cycles x {len(SCRIPTS)} hot probes ran to the end",
          "exit=0" in status and vals.get("cycles") == str(cycles), status + text[-1500:])
    bad = [l for l in text.splitlines() if l.startswith("BAD")]
    check(f"{release}: every session ended cleanly with hits", not bad, "\n".join(bad[:5]))
    for what in ("modules", "debugfs", "procfs", "kprobes", "ftrace"):
        check(f"{release}: nothing left in {what}", vals.get(what) == "0", vals.get(what))
    try:
        before, after = (int(x) for x in vals["slab_kb"].split())
        check(f"{release}: Slab grew by less than 4 MiB ({before} -> {after} kB)", after - before < 4096)
    except (KeyError, ValueError):
        check(f"{release}: Slab figures", False, text[-500:])
    check(f"{release}: clean kernel log", not problems.strip(), problems)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cycles", type=int, default=10)
    ap.add_argument("--kernel", action="append", help="only this kernel (repeatable)")
    args = ap.parse_args()
    kernels = args.kernel or [k for k in KERNELS if os.path.exists(f"/boot/vmlinuz-{k}")]
    with tempfile.TemporaryDirectory(prefix="xtap-soak-") as work:
        for k in kernels:
            soak(args.build, k, args.cycles, work)
    passed = sum(results)
    print(f"soak: {passed} passed, {len(results) - passed} failed")
    return 0 if results and passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
