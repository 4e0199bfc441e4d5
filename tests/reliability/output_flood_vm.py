#!/usr/bin/env python3
"""Sustained output (issue 29, docs/safety.md): a flood of printf records
from busy probes for FLOOD seconds, in one 512 MiB VM boot per kernel.

The script prints a line on every sched_switch, vfs_read and system call
and counts the lines it printed; a shell loop of cat and ls keeps the
probes busy. Checked, for `xtap-run -o FILE`:
- the file grows during the run, sampled every two seconds;
- the collector's peak resident memory (VmHWM) stays under RSS_BOUND_KB;
- every record is either written or counted as dropped: the lines in the
  file plus the drops xtap-run reports equal the count the script printed
  at its end, and every line is whole;
- the session ends with exit 0 and the kernel log is clean.
Then the same flood for a few seconds with --format json, with -b (per-CPU
files, no merge), and with small buffers and the collector stopped for a
second (records dropped, and counted), each under the same memory bound,
and once with the
collector killed by SIGKILL mid-flood: the file holds whole lines up to its
last write, and xtap-run --cleanup removes the module the collector left.

    python3 tests/reliability/output_flood_vm.py [--seconds N] [--kernel REL]

Prints one line per check and ends with "flood: N passed, N failed".
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RSS_BOUND_KB = 16 * 1024

SCRIPT = r"""
global produced
probe kernel.trace("sched:sched_switch"), kernel.function("vfs_read"), syscall.* {
  produced++
  printf("%s %d %s\n", execname(), pid(), ppfunc())
}
probe end { printf("produced %d\n", produced) }
"""

# The flood at default buffer sizes, and with 4 x 4 KiB per CPU, which fill
# while the collector is stopped for a second: records are dropped, and
# counted.
MODULES = {"flood": [], "flood_small": ["-DSTP_BUFFER_SUBBUFS=4", "-DSTP_BUFFER_SUBBUF_SIZE=4096"]}

# Runs one flood: NAME SECONDS MODULE [xtap-run options]; prints "NAME.key value"
# lines. The collector's output and stderr stay in the guest; what the host
# needs is counted here (the files are tens of megabytes).
GUEST = r"""
hwm() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/$1/status 2>/dev/null; }
size() { stat -c %s $1 2>/dev/null | awk '{s += $1} END {print s + 0}'; }
flood() {
  name=$1 secs=$2 ko=/lib/xtap/$3.ko; shift 3
  out=/tmp/$name.out
  xtap-run -T $secs "$@" $ko > /tmp/$name.stdout 2> /tmp/$name.err &
  pid=$!
  i=0 peak=0 sizes=
  while kill -0 $pid 2>/dev/null; do
    sleep 1
    i=$((i + 1))
    h=$(hwm $pid); [ -n "$h" ] && peak=$h
    # A collector that stalls for a second (a slow disk): the buffers fill.
    [ -n "$pause" ] && [ $i -eq 2 ] && { kill -STOP $pid; sleep 1; kill -CONT $pid; }
    [ $((i % 2)) -eq 0 ] && sizes="$sizes $(size "$out*")"
  done
  wait $pid
  echo "$name.rc $?"
  echo "$name.hwm_kb $peak"
  echo "$name.sizes$sizes"
  echo "$name.dropped $(sed -n 's/^WARNING: \([0-9]*\) output records.*/\1/p' /tmp/$name.err)"
  echo "$name.stderr $(grep -v '^WARNING: [0-9]* output records' /tmp/$name.err | head -3 | tr '\n' '|')"
}
# Whole lines of the flood's format and the script's count, over FILES.
count() {
  name=$1; shift
  cat "$@" > /tmp/all
  echo "$name.sample $(grep -v '^produced ' /tmp/all | grep -vE '^[^ ]+ [0-9]+ [^ ]*$' | head -3 | tr '\n' '|')"
  echo "$name.produced $(sed -n 's/^produced //p' /tmp/all)"
  echo "$name.written $(grep -vc '^produced ' /tmp/all)"
  echo "$name.malformed $(grep -v '^produced ' /tmp/all | grep -vcE '^[^ ]+ [0-9]+ [^ ]*$')"
  rm -f /tmp/all
}
for i in 1 2; do ( while :; do cat /proc/version /proc/stat > /dev/null; ls -l / > /dev/null; done ) & done
sleep 1
flood file FLOOD flood -o /tmp/file.out
count file /tmp/file.out
rm -f /tmp/file.out*
flood json 4 flood --format json -o /tmp/json.out
echo "json.lines $(grep -c '^{"type":"output","text":' /tmp/json.out)"
echo "json.summary $(grep -c '^{"type":"summary",' /tmp/json.out)"
rm -f /tmp/json.out*
flood bulk 4 flood -b -o /tmp/bulk.out
count bulk /tmp/bulk.out_cpu*
rm -f /tmp/bulk.out*
pause=1
flood small 6 flood_small -o /tmp/small.out
pause=
count small /tmp/small.out
rm -f /tmp/small.out*
# SIGKILL of the collector mid-flood.
xtap-run -o /tmp/killed.out /lib/xtap/flood.ko 2> /tmp/killed.err &
pid=$!
sleep 4
before=$(size /tmp/killed.out)
sleep 1
kill -KILL $pid
wait $pid
echo "killed.rc $?"
echo "killed.before $before"
sleep 1
echo "killed.after $(size /tmp/killed.out)"
echo "killed.last_byte $(tail -c 1 /tmp/killed.out | od -An -c | tr -d ' ')"
echo "killed.malformed $(grep -vcE '^[^ ]+ [0-9]+ [^ ]*$' /tmp/killed.out)"
xtap-run --cleanup > /dev/null 2>&1
echo "killed.loaded $(grep -c '^flood ' /proc/modules)"
kill $(jobs -p) 2>/dev/null; wait 2>/dev/null
"""

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"), flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def installed_kernels():
    rels = [os.path.basename(p)[len("vmlinuz-"):] for p in glob.glob("/boot/vmlinuz-*-cloud-amd64")]
    return sorted(r for r in rels if os.path.exists(f"/lib/modules/{r}/build/Makefile"))


def num(vals, key):
    try:
        return int(vals.get(key, "").split()[0])
    except (ValueError, IndexError):
        return None


def flood(build, release, seconds, work):
    src = os.path.join(work, "flood.stp")
    with open(src, "w") as f:
        f.write(SCRIPT)
    files = []
    for name, limits in MODULES.items():
        ko = os.path.join(work, f"{release}-{name}.ko")
        r = run([os.path.join(build, "cli", "xtap"), "-p4", "-r", release, "-m", name,
                 "-DSTP_NO_OVERLOAD", *limits, src], cwd=work)
        if r.returncode:
            check(f"{release}: build {name}", False, r.stderr[-1500:])
            return
        run(["strip", "--strip-debug", "-o", ko, os.path.join(work, name + ".ko")], check=True)
        files.append(f"file /lib/xtap/{name}.ko {ko}")
    guest = os.path.join(work, "flood.sh")
    with open(guest, "w") as f:
        f.write(GUEST.replace("FLOOD", str(seconds)))
    manifest = os.path.join(work, f"{release}.batch")
    with open(manifest, "w") as f:
        f.write("\n".join(["memory-mb 512", "cpus 2", *files, f"file /usr/bin/flood.sh {guest}", "job flood", "command sh /usr/bin/flood.sh",
                           f"timeout {seconds + 120}"]) + "\n")
    out = os.path.join(work, release + "-out")
    r = run([os.path.join(build, "cli", "xtap-vmbatch"), "--kernel", release, manifest, out])
    if r.returncode not in (0, 1):
        check(f"{release}: VM batch", False, r.stderr.strip())
        return
    text = open(os.path.join(out, "flood.out")).read()
    problems = open(os.path.join(out, "problems.txt")).read()
    vals = dict(re.findall(r"^(\w+\.\w+) ?(.*)$", text, re.M))
    print(f"{release}: " + "; ".join(f"{k} {v}" for k, v in vals.items() if not k.endswith("stderr")),
          flush=True)

    check(f"{release}: a {seconds} s flood ends cleanly", vals.get("file.rc") == "0"
          and not vals.get("file.stderr"), text[-1500:])
    sizes = [int(s) for s in vals.get("file.sizes", "").split()]
    check(f"{release}: the file grows during the run ({' '.join(map(str, sizes))} bytes)",
          len(sizes) >= seconds // 2 - 1 and sizes[0] > 0 and all(b > a for a, b in zip(sizes, sizes[1:])),
          vals.get("file.sizes"))
    for name in ("file", "json", "bulk"):
        hwm = num(vals, f"{name}.hwm_kb")
        check(f"{release}: {name}: collector's peak RSS {hwm} kB, under {RSS_BOUND_KB} kB",
              hwm is not None and 0 < hwm < RSS_BOUND_KB, vals.get(f"{name}.hwm_kb"))
    for name in ("file", "bulk", "small"):
        produced, written = num(vals, f"{name}.produced"), num(vals, f"{name}.written")
        dropped = num(vals, f"{name}.dropped") or 0
        check(f"{release}: {name}: written {written} + dropped {dropped} = produced {produced}",
              produced and written is not None and written + dropped == produced, text[-800:])
        check(f"{release}: {name}: every line whole", vals.get(f"{name}.malformed") == "0",
              vals.get(f"{name}.malformed"))
    check(f"{release}: small buffers: records were dropped ({vals.get('small.dropped')})",
          (num(vals, "small.dropped") or 0) > 0, text[-800:])
    check(f"{release}: json: output lines and one summary", (num(vals, "json.lines") or 0) > 0
          and vals.get("json.summary") == "1" and vals.get("json.rc") == "0", text[-800:])
    before, after = num(vals, "killed.before"), num(vals, "killed.after")
    check(f"{release}: SIGKILL mid-flood: the file held {before} bytes a second before and {after} after,"
          " whole lines", vals.get("killed.rc") == "137" and before and after >= before
          and vals.get("killed.last_byte") == "\\n" and vals.get("killed.malformed") == "0", text[-800:])
    check(f"{release}: SIGKILL mid-flood: --cleanup removes the module", vals.get("killed.loaded") == "0",
          vals.get("killed.loaded"))
    check(f"{release}: clean kernel log", not problems.strip(), problems)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--kernel", action="append", help="only this kernel (repeatable)")
    args = ap.parse_args()
    kernels = args.kernel or installed_kernels()
    args.build = os.path.abspath(args.build)
    with tempfile.TemporaryDirectory(prefix="xtap-flood-") as work:
        for k in kernels:
            flood(args.build, k, args.seconds, work)
    passed = sum(results)
    print(f"flood: {passed} passed, {len(results) - passed} failed")
    return 0 if results and passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
