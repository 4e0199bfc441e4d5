#!/usr/bin/env python3
"""The user's own programs probed through `xtap --vm` (docs/probes.md).

As a new user would: a small C program with a USDT mark, built here with
`gcc -g -O1` twice (dynamic and -static), probed by relative path
(process("./prog")) at its function entry ($x), its return ($return) and
its mark ($arg2), with `xtap --vm -c './prog && ./prog_static'` run from
the programs' directory: one boot per kernel (6.1 and 6.12). The guest
has none of these files of its own: xtap carries the programs, the
dynamic one's libraries and loader (docs/cli.md). A third program loads
a library of its own through its RUNPATH ($ORIGIN/lib), probed by
.library("libuser.so"). Then systemtap-doc's
process/ltrace.stp with `-c ls` as its meta runs it (one more 6.1 boot):
`ls` found through $PATH and its libraries, probed at their PLTs. And,
without a VM, the error for a -c program that cannot be carried.

Prints one line per check and ends with "userprog: N passed, N failed".
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNELS = ["6.1.0-56-cloud-amd64", "6.12.117+deb12-cloud-amd64"]
LTRACE = "/usr/share/systemtap/examples/process/ltrace.stp"

PROG_C = r"""
#include <stdio.h>
#include <sys/sdt.h>

__attribute__((noinline)) int work(int x)
{
	int r = x * 3 + 1;
	DTRACE_PROBE2(userprog, tick, x, r);
	return r;
}

int main(void)
{
	int s = 0;
	for (int i = 1; i <= 3; i++)
		s += work(i * 10);
	printf("sum %d\n", s);
	return 0;
}
"""

# A library of the user's own, found by the program's RUNPATH ($ORIGIN/lib)
# only: neither in ld.so.cache nor in a system directory.
LIB_C = r"""
__attribute__((noinline)) int lib_work(int x)
{
	return x + 1000;
}
"""

USES_LIB_C = r"""
#include <stdio.h>
int lib_work(int x);
int main(void)
{
	printf("lib %d\n", lib_work(7));
	return 0;
}
"""

SCRIPT = r"""
probe process("./prog").function("work"), process("./prog_static").function("work") {
  printf("%s entry x=%d\n", execname(), $x)
}
probe process("./prog").mark("tick"), process("./prog_static").mark("tick") {
  printf("%s mark arg2=%d\n", execname(), $arg2)
}
probe process("./uses_lib").library("libuser.so").function("lib_work") {
  printf("%s lib_work x=%d\n", execname(), $x)
}
probe process("./uses_lib").library("libuser.so").function("lib_work").return {
  printf("%s lib_work return %d\n", execname(), $return)
}
probe process("./prog").function("work").return,
      process("./prog_static").function("work").return {
  printf("%s return %d\n", execname(), $return)
}
"""

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"), flush=True)


def expected(prog):
    lines = []
    for i in (1, 2, 3):
        x = 10 * i
        lines += [f"{prog} entry x={x}", f"{prog} mark arg2={3 * x + 1}", f"{prog} return {3 * x + 1}"]
    return lines


def build_programs(work):
    src = os.path.join(work, "prog.c")
    with open(src, "w") as f:
        f.write(PROG_C)
    for out, extra in (("prog", []), ("prog_static", ["-static"])):
        r = subprocess.run(["gcc", "-g", "-O1", *extra, "-o", os.path.join(work, out), src],
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"userprog: gcc failed (systemtap-sdt-dev for sys/sdt.h?): {r.stderr}")
    os.makedirs(os.path.join(work, "lib"))
    for name, text in (("lib/user.c", LIB_C), ("uses_lib.c", USES_LIB_C)):
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    for args in (["-shared", "-fPIC", "-o", "lib/libuser.so", "lib/user.c"],
                 ["-o", "uses_lib", "uses_lib.c", "-Llib", "-luser", "-Wl,-rpath,$ORIGIN/lib"]):
        r = subprocess.run(["gcc", "-g", "-O1", *args], cwd=work, capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"userprog: gcc failed: {r.stderr}")


def run_programs(xtap, kernel, work):
    r = subprocess.run([xtap, "--vm", "-q", "-r", kernel, "-e", SCRIPT, "-c", "./prog && ./prog_static && ./uses_lib"],
                       cwd=work, capture_output=True, text=True, timeout=900)
    out = r.stdout.splitlines()
    tag = f"[{kernel.split('-')[0]}]"
    check(f"{tag} xtap --vm exits 0", r.returncode == 0, r.stderr[-2000:])
    for prog in ("prog", "prog_static"):
        got = [l for l in out if l.startswith(prog + " ")]
        check(f"{tag} {prog}: $x at entry, $arg2 at the mark, $return", got == expected(prog),
              f"got {got}\nstderr: {r.stderr[-1500:]}")
    got = [l for l in out if l.startswith("uses_lib ")]
    check(f"{tag} a library found by RUNPATH $ORIGIN/lib: .library(\"libuser.so\") $x, $return",
          got == ["uses_lib lib_work x=7", "uses_lib lib_work return 1007"], f"got {got}")
    check(f"{tag} the three programs ran in the guest",
          out.count("sum 183") == 2 and "lib 1007" in out, f"stdout: {out}")


def run_ltrace(xtap, kernel, work):
    if not os.path.exists(LTRACE):
        print("SKIP ltrace.stp: systemtap-doc is not installed")
        return
    r = subprocess.run([xtap, "--vm", "-q", "-r", kernel, LTRACE, "-c", "ls"],
                       cwd=work, capture_output=True, text=True, timeout=900)
    tag = f"[{kernel.split('-')[0]}]"
    check(f"{tag} ltrace.stp -c ls exits 0", r.returncode == 0, r.stderr[-2000:])
    # ls's own calls through its PLT (so the guest ran the host's ls, not
    # busybox's static applet), and calls inside libc through libc's.
    calls = re.findall(r"^(\w+) \(", r.stdout, re.M)
    check(f"{tag} ltrace.stp shows ls's library calls (opendir, readdir, closedir)",
          all(c in calls for c in ("opendir", "readdir", "closedir")), r.stdout[:1500] + r.stderr[-800:])
    check(f"{tag} ltrace.stp shows libc's own PLT calls (__tunable_get_val ...)",
          "__tunable_get_val" in calls, r.stdout[:1500])


def run_errors(xtap, work):
    r = subprocess.run([xtap, "--vm", "-r", KERNELS[0], "-e", "probe begin { exit() }", "-c", "./no-such-prog"],
                       cwd=work, capture_output=True, text=True, timeout=300)
    check("a -c program that does not exist: XTP2261 before any build or boot",
          r.returncode != 0 and "error[XTP2261]" in r.stderr and "no such file" in r.stderr
          and "booting" not in r.stderr, r.stderr)
    r = subprocess.run([xtap, "--vm", "-r", KERNELS[0], "-e", 'probe process("/bin/sh").plt("getpid") { }',
                        "-c", "sh -c true"], cwd=work, capture_output=True, text=True, timeout=300)
    check("a probe on /bin/sh (the guest's busybox): XTP2261 at the probe point",
          r.returncode != 0 and "<input>:1:7: error[XTP2261]" in r.stderr and "^" in r.stderr, r.stderr)
    notes = os.path.join(work, "notes.txt")
    with open(notes, "w") as f:
        f.write("not a program\n")
    r = subprocess.run([xtap, "--vm", "-r", KERNELS[0], "-e", "probe begin { exit() }", "-d", notes],
                       cwd=work, capture_output=True, text=True, timeout=300)
    check("-d of a file that is no program: XTP2261", r.returncode != 0 and "XTP2261" in r.stderr
          and "neither an ELF program" in r.stderr, r.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--kernel", action="append", help="only this release (repeatable)")
    ap.add_argument("--no-ltrace", action="store_true")
    a = ap.parse_args()
    xtap = os.path.join(a.build, "cli", "xtap")
    kernels = [k for k in (a.kernel or KERNELS) if os.path.exists(f"/boot/vmlinuz-{k}")]
    with tempfile.TemporaryDirectory(prefix="xtap-userprog-") as work:
        build_programs(work)
        run_errors(xtap, work)
        for k in kernels:
            run_programs(xtap, k, work)
        if not a.no_ltrace and kernels:
            run_ltrace(xtap, kernels[0], work)
    passed = sum(results)
    print(f"userprog: {passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
