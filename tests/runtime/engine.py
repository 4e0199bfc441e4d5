#!/usr/bin/env python3
"""xtap runtime test engine.

Builds every selected test's module on the host (xtap -p4), boots one
throwaway VM for the whole batch (xtap-vmbatch), and compares the results on
the host. Test file format and usage: docs/testing.md.

    python3 tests/runtime/engine.py BUILD_DIR [FILTER] [-j N] [-v] [--kernel REL]
"""

import argparse
import concurrent.futures
import fnmatch
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import testfile  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD_TIMEOUT_S = 600
CLOUD_SUFFIX = "-cloud-amd64"


def release_key(release):
    """Natural order: digit runs compare as numbers (same rule as cli/vm)."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.findall(r"\d+|\D+", release)]


def other_kernel(release):
    """The newest cloud kernel with headers other than release (BUILD_KERNEL other), or None."""
    for rel in sorted((os.path.basename(p)[len("vmlinuz-"):]
                       for p in glob.glob("/boot/vmlinuz-*" + CLOUD_SUFFIX)),
                      key=release_key, reverse=True):
        if rel != release and os.path.isdir(f"/lib/modules/{rel}/build"):
            return rel
    return None


def find_vm_kernel(release):
    """(release, None) or (None, why): same rule as xtap::vm::find_vm_kernel."""
    if release:
        candidates = [release]
    else:
        candidates = sorted((os.path.basename(p)[len("vmlinuz-"):]
                             for p in glob.glob("/boot/vmlinuz-*" + CLOUD_SUFFIX)),
                            key=release_key, reverse=True)
        if not candidates:
            return None, "no Debian cloud kernel installed (/boot/vmlinuz-*-cloud-amd64)"
    reasons = []
    for rel in candidates:
        image, build = f"/boot/vmlinuz-{rel}", f"/lib/modules/{rel}/build"
        if not os.access(image, os.R_OK):
            reasons.append(f"{image} missing or unreadable")
        elif not os.path.isdir(build):
            reasons.append(f"{build} missing")
        else:
            return rel, None
    return None, "; ".join(reasons)


def kernel_config(release):
    config = {}
    try:
        with open(f"/boot/config-{release}") as f:
            for line in f:
                m = re.match(r"(CONFIG_\w+)=(.*)", line)
                if m:
                    config[m.group(1)] = m.group(2)
    except OSError:
        pass
    return config


def unmet_requirement(req, release, config):
    """Why the test must be skipped, or '' if req holds. Raises on bad syntax."""
    words = req.split()
    if len(words) == 2 and words[0] == "config":
        return "" if config.get(words[1]) in ("y", "m") else f"{words[1]} not set in {release}"
    if len(words) == 2 and words[0] == "host-cmd":
        return "" if shutil.which(words[1]) else f"{words[1]} not installed on the host"
    if len(words) == 3 and words[0] == "kernel" and words[1] in (">=", "<"):
        have = [int(x) for x in re.findall(r"\d+", release)[:3]]
        want = [int(x) for x in words[2].split(".")]
        if words[1] == "<":
            return "" if have < want else f"kernel {release} not older than {words[2]}"
        return "" if have >= want else f"kernel {release} older than {words[2]}"
    if words in (["debuginfo"], ["no-debuginfo"]):
        path = f"/usr/lib/debug/boot/vmlinux-{release}"
        if words == ["no-debuginfo"]:
            return f"{release} has DWARF debuginfo ({path})" if os.path.isfile(path) else ""
        return "" if os.path.isfile(path) else f"no DWARF debuginfo for {release} ({path})"
    raise testfile.TestFileError(f"unknown REQUIRES '{req}' (config CONFIG_X | "
                                 "host-cmd NAME | kernel >= X.Y | kernel < X.Y | debuginfo | no-debuginfo)")


class Outcome:
    def __init__(self, test):
        self.test = test
        self.state = None      # PASS FAIL SKIP, None while pending
        self.reasons = []
        self.module = None     # built .ko
        self.helper_ko = None  # host path of its HELPER_MODULE
        self.second_ko = None  # SECOND_SCRIPT's module, stripped for the guest
        self.build_release = None  # BUILD_KERNEL other: the kernel its module is built for
        self.detail = ""       # stderr shown with a failure
        self.elapsed_ms = None

    def finish(self, state, reasons=(), detail=""):
        self.state = state
        self.reasons = list(reasons)
        self.detail = detail


def run(cmd, cwd, timeout):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return -1, "", f"{cmd[0]} timed out after {timeout} s"
    except OSError as e:
        return -1, "", f"cannot run {cmd[0]}: {e}"


def link_address_args(arg, release):
    """SCRIPT_ARGS' $SYSMAP(name): the symbol's address as linked, from the
    -dbg package's System.map of `release` (kernel.statement(ADDR) tests)."""
    m = re.fullmatch(r"\$SYSMAP\((\w+)\)", arg)
    if not m:
        return arg
    with open(f"/usr/lib/debug/boot/System.map-{release}") as f:
        for line in f:
            fields = line.split()
            if len(fields) == 3 and fields[2] == m.group(1):
                return "0x" + fields[0]
    return arg


def build_module(o, xtap, release, work):
    """Pass 4 for one test; judges BUILD_FAIL_REGEX tests on the spot."""
    t = o.test
    d = os.path.join(work, t.job_name)
    os.makedirs(d, exist_ok=True)
    script = t.script
    if t.prog is not None:
        script = os.path.join(d, "script.stp")
        with open(script, "w") as f:
            f.write(t.prog)
    helper = [] if not t.helper_module else ["--debuginfo", o.helper_ko]
    # $SYSROOT: the workloads' tree; $TESTS: tests/runtime (a test's own files).
    args = [a.replace("$SYSROOT", sysroot_dir(work)).replace("$TESTS", HERE) for a in t.args]
    release = o.build_release or release
    script_args = [link_address_args(a, release) for a in t.script_args]
    cmd = [xtap, "-p4", "-r", release, "-m", t.module_name] + helper + args + [script] + script_args
    with open(os.path.join(d, "build.cmd"), "w") as f:
        f.write(" ".join(cmd) + "\n")
    code, out, err = run(cmd, d, BUILD_TIMEOUT_S)
    if t.build_fail_regex is not None:
        if code == 0:
            o.finish("FAIL", ["the build succeeded, expected it to fail (BUILD_FAIL_REGEX)"])
        elif not re.search(t.build_fail_regex, err + out, re.MULTILINE):
            o.finish("FAIL", [f"build output does not match BUILD_FAIL_REGEX "
                              f"{t.build_fail_regex!r}"], detail=err + out)
        else:
            o.finish("PASS")
        return
    if code != 0:
        o.finish("FAIL", [f"build failed (exit {code})"], detail=err + out)
        return
    candidates = [line.strip() for line in out.splitlines() if line.strip().endswith(".ko")]
    candidates.append(t.module_name + ".ko")
    for c in candidates:
        path = os.path.join(d, c)
        if os.path.isfile(path):
            o.module = os.path.abspath(path)
            break
    else:
        o.finish("FAIL", ["the build succeeded but produced no .ko"], detail=out + err)
        return
    if t.second_script:
        build_second_module(o, xtap, release, args, d)


def build_second_module(o, xtap, release, args, d):
    """SECOND_SCRIPT: built like the test's own, stripped for the guest (/lib/xtap/)."""
    t = o.test
    name = t.second_module_name
    code, out, err = run([xtap, "-p4", "-r", release, "-m", name] + args + [t.second_script],
                         d, BUILD_TIMEOUT_S)
    ko = os.path.join(d, name + ".ko")
    if code != 0 or not os.path.isfile(ko):
        o.finish("FAIL", [f"SECOND_SCRIPT build failed (exit {code})"], detail=err + out)
        return
    o.second_ko = os.path.join(d, "guest", name + ".ko")
    os.makedirs(os.path.dirname(o.second_ko), exist_ok=True)
    code, _, err = run(["strip", "--strip-debug", "-o", o.second_ko, ko], d, 60)
    if code != 0:
        o.finish("FAIL", [f"cannot strip {ko}"], detail=err)


def build_helper(name, release, work):
    """tests/runtime/helpers/NAME built by Kbuild for release: (host .ko, None) or (None, why)."""
    src = os.path.join(HERE, "helpers", name)
    out = os.path.join(work, "helpers", name)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(src, out)
    code, _, err = run(["make", "-C", f"/lib/modules/{release}/build", f"M={out}", "modules"],
                       out, BUILD_TIMEOUT_S)
    ko = os.path.join(out, name + ".ko")
    if code != 0 or not os.path.isfile(ko):
        return None, f"cannot build helper module {name}:\n{err[-2000:]}"
    return ko, None


def sysroot_dir(work):
    """Where the workloads are built: the guest's file tree as the host sees it
    (uprobe tests read /usr/bin/NAME there with xtap --sysroot $SYSROOT)."""
    return os.path.join(work, "sysroot")


def build_workloads(work, jobs):
    """Static workload programs: (guest path, host path) pairs, or raises."""
    out_dir = os.path.join(sysroot_dir(work), "usr", "bin")
    os.makedirs(out_dir, exist_ok=True)
    sources = sorted(glob.glob(os.path.join(HERE, "workloads", "*.c")) +
                     glob.glob(os.path.join(HERE, "workloads", "*.cpp")))

    def one(src):
        name = os.path.splitext(os.path.basename(src))[0]
        exe = os.path.join(out_dir, name)
        # -g: the uprobe tests' programs carry their DWARF. NAME_dyn.c is
        # linked dynamically (the shared-library uprobe tests); a .cpp is C++.
        link = [] if name.endswith("_dyn") else ["-static"]
        cc = "g++" if src.endswith(".cpp") else "gcc"
        code, out, err = run([cc] + link + ["-O2", "-g", "-Wall", "-o", exe, src], out_dir, 120)
        if code != 0:
            raise RuntimeError(f"cannot build workload {src}:\n{err}")
        return f"/usr/bin/{name}", exe

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        files = list(pool.map(one, sources))
    # What the dynamic workloads need in the guest (and in the sysroot, where
    # uprobe tests read libc.so.6 and stack tests every library's CFI): the
    # host's loader, libc and the C++ runtime.
    for guest in GUEST_LIBRARIES:
        host = os.path.realpath(guest)
        if any(g.endswith("_dyn") for g, _ in files) and os.path.isfile(host):
            files.append((guest, host))
            link = os.path.join(sysroot_dir(work), guest.lstrip("/"))
            os.makedirs(os.path.dirname(link), exist_ok=True)
            if not os.path.lexists(link):
                os.symlink(host, link)
    # Their debug files (libc6-dbg), where the host has them: the symbols of
    # libc's local functions (start_thread, clone3) in user stacks.
    debug = "/usr/lib/debug/.build-id"
    link = os.path.join(sysroot_dir(work), debug.lstrip("/"))
    if os.path.isdir(debug) and not os.path.lexists(link):
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(debug, link)
    return files


GUEST_LIBRARIES = ["/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/libc.so.6",
                   "/lib/x86_64-linux-gnu/libm.so.6", "/lib/x86_64-linux-gnu/libgcc_s.so.1",
                   "/lib/x86_64-linux-gnu/libstdc++.so.6"]


def write_manifest(path, outcomes, workloads):
    lines = ["# generated by tests/runtime/engine.py"]
    for guest, host in workloads:
        lines.append(f"file {guest} {host}")
    for ko in sorted({o.helper_ko for o in outcomes if o.helper_ko} |
                     {o.second_ko for o in outcomes if o.second_ko}):
        lines.append(f"file /lib/xtap/{os.path.basename(ko)} {ko}")
    for o in outcomes:
        t = o.test
        lines.append(f"job {t.job_name}")
        lines.append(f"module {o.module}")
        for a in t.runner_args:
            lines.append(f"arg {a}")
        if t.run:
            lines.append(f"command {t.run}")
        lines.append(f"timeout {t.timeout_s}")
        if t.interrupt_after_ms >= 0:
            lines.append(f"interrupt-after-ms {t.interrupt_after_ms}")
            lines.append(f"interrupt-signal {t.interrupt_signal}")
        if t.after:
            lines.append(f"after {t.after}")
        before = t.before
        if t.helper_module:
            # Loaded before the script's module, whose kprobes need its symbols.
            load = f"grep -q '^{t.helper_module} ' /proc/modules || insmod /lib/xtap/{t.helper_module}.ko"
            before = load + (f"; {before}" if before else "")
        if t.stdin:
            # The guest runs xtap-run with stdin from the job's stdin file when there is one.
            feed = f"printf {shlex.quote(t.stdin)} > /run/xtap-vm/{t.job_name}/stdin"
            before = f"{before}; {feed}" if before else feed
        if before:
            lines.append(f"before {before}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def read_status(path):
    status = {}
    try:
        with open(path) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                status[k] = v
    except OSError:
        pass
    return status


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def run_vm(outcomes, vmbatch, xtap, release, work, workloads, verbose):
    manifest = os.path.join(work, "manifest.txt")
    results = os.path.join(work, "results")
    shutil.rmtree(results, ignore_errors=True)
    write_manifest(manifest, outcomes, workloads)
    cmd = [vmbatch, "--kernel", release] + (["-v"] if verbose else []) + [manifest, results]
    print(f"vm: {len(outcomes)} job(s) in one {release} boot", flush=True)
    start = time.monotonic()
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    err = p.stderr.decode(errors="replace")
    batch = read_status(os.path.join(results, "batch.txt"))
    print(f"vm: done in {time.monotonic() - start:.1f} s (boot {batch.get('boot_s', '?')} s), "
          f"xtap-vmbatch exit {p.returncode}", flush=True)
    if verbose or p.returncode not in (0, 1):
        sys.stdout.write("".join("    " + line + "\n" for line in err.splitlines()))

    problems = []
    for line in read_text(os.path.join(results, "problems.txt")).splitlines():
        job, _, text = line.partition("\t")
        problems.append((job, text))
    if problems:
        print(f"vm: {len(problems)} kernel problem line(s) in the guest's log "
              f"({os.path.join(results, 'kernel.log')}):")
        for job, text in problems[:20]:
            print(f"    [{job}] {text}")

    for o in outcomes:
        t = o.test
        base = os.path.join(results, t.job_name)
        status = read_status(base + ".status")
        out, err_text = read_text(base + ".out"), read_text(base + ".err")
        expect_file_text = read_text(t.expect_file) if t.expect_file else None
        if t.expect_file and not os.path.isfile(t.expect_file):
            o.finish("FAIL", [f"EXPECT_FILE {t.expect_file} not found"])
            continue
        reasons = compare.check_run(t, status, out, err_text, expect_file_text)
        if t.flamegraph and status.get("completed") == "1":
            reasons += compare.check_flamegraph(t, xtap, out, work)
        own_failure = bool(reasons)  # show stderr only when the test itself failed
        if "elapsed_ms" in status and status["elapsed_ms"] not in ("", "-1"):
            o.elapsed_ms = int(status["elapsed_ms"])
        if status.get("completed") != "1" and batch.get("error"):
            reasons.append("batch: " + batch["error"].splitlines()[0])
        if problems:
            mine = [text for job, text in problems if job == t.job_name]
            reasons.append("kernel problems in the guest's log" +
                           (f" during this test: {mine[0]}" if mine else " (whole batch fails)"))
        if reasons and status:
            # How the run ended, to tell a probe that never fired from a lost run.
            reasons.append("run: " + ", ".join(f"{k}={status[k]}" for k in
                                                ("exit", "timed_out", "completed", "elapsed_ms")
                                                if k in status))
        o.finish("FAIL" if reasons else "PASS", reasons, detail=err_text if own_failure else "")


def report(o):
    t = o.test
    timing = f" ({o.elapsed_ms / 1000:.2f}s)" if o.elapsed_ms is not None else ""
    title = f"{t.id}{timing}" + (f"  {t.name}" if t.name != t.stem else "")
    if o.state == "PASS":
        print(f"PASS  {title}")
        return
    if o.state == "SKIP":
        print(f"SKIP  {t.id}: {'; '.join(o.reasons)}")
        return
    print(f"FAIL  {title}")
    for r in o.reasons:
        for i, line in enumerate(r.splitlines()):
            print(("    - " if i == 0 else "      ") + line)
    detail = o.detail.strip()
    if detail:
        lines = detail.splitlines()
        shown = lines[:15] + ([f"... ({len(lines) - 15} more lines)"] if len(lines) > 15 else [])
        print("    stderr:")
        for line in shown:
            print("      | " + line)


def main():
    ap = argparse.ArgumentParser(description="xtap runtime tests (one VM boot per batch)")
    ap.add_argument("build_dir", help="CMake build dir with cli/xtap, cli/xtap-run, cli/xtap-vmbatch")
    ap.add_argument("filter", nargs="*", default=[],
                    help="run tests whose id (group/name) contains one of these, or matches it as a glob")
    ap.add_argument("-j", type=int, default=2, help="parallel module builds (2)")
    ap.add_argument("-v", action="store_true", help="show the VM's progress")
    ap.add_argument("--kernel", default="", help="kernel release (default: newest cloud kernel)")
    ap.add_argument("--list", action="store_true", help="list the selected tests and exit")
    # Intermixed: options may come after the filters too (build --kernel REL examples/).
    args = ap.parse_intermixed_args()

    build = os.path.abspath(args.build_dir)
    xtap = os.path.join(build, "cli", "xtap")
    vmbatch = os.path.join(build, "cli", "xtap-vmbatch")
    work = os.path.join(build, "runtime-tests")

    tests, broken = [], []
    for path in testfile.discover(HERE):
        rel = os.path.relpath(path, HERE)
        tid = os.path.splitext(rel)[0]
        if args.filter and not any(f in tid or fnmatch.fnmatch(tid, f) for f in args.filter):
            continue
        try:
            tests.append(testfile.parse_test_file(path, HERE))
        except testfile.TestFileError as e:
            broken.append((tid, str(e)))
    if args.list:
        for t in tests:
            print(f"{t.id}  {t.name}")
        return 0

    outcomes = [Outcome(t) for t in tests]
    release, why = find_vm_kernel(args.kernel)
    if release is None:
        for o in outcomes:
            o.finish("FAIL", [f"no VM kernel: {why}"])
    else:
        print(f"kernel: {release}", flush=True)
        config = kernel_config(release)
        for o in outcomes:
            try:
                unmet = [u for u in (unmet_requirement(r, release, config)
                                     for r in o.test.requires) if u]
            except testfile.TestFileError as e:
                o.finish("FAIL", [str(e)])
                continue
            if o.test.build_kernel == "other":
                o.build_release = other_kernel(release)
                if not o.build_release:
                    unmet.append(f"no cloud kernel with headers other than {release}")
            if unmet:
                o.finish("SKIP", unmet)

    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    pending = [o for o in outcomes if o.state is None]
    helpers = {}
    for o in pending:
        name = o.test.helper_module
        if name and name not in helpers:
            helpers[name] = build_helper(name, release, work)
        if name:
            o.helper_ko, why = helpers[name]
            if why:
                o.finish("FAIL", [why])
    pending = [o for o in outcomes if o.state is None]
    # The workloads first: a uprobe test's build reads them (--sysroot).
    workloads = None
    if pending:
        try:
            workloads = build_workloads(work, max(1, args.j))
        except RuntimeError as e:
            for o in pending:
                o.finish("FAIL", [str(e)])
    pending = [o for o in outcomes if o.state is None]
    if pending:
        if not os.access(xtap, os.X_OK):
            for o in pending:
                o.finish("FAIL", [f"{xtap} not found (build the project first)"])
        else:
            start = time.monotonic()
            with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
                list(pool.map(lambda o: build_module(o, xtap, release, work), pending))
            print(f"build: {len(pending)} module(s) in {time.monotonic() - start:.1f} s "
                  f"(-j {args.j})", flush=True)

    to_run = [o for o in outcomes if o.state is None]
    if to_run:
        if workloads is not None:
            if not os.access(vmbatch, os.X_OK):
                for o in to_run:
                    o.finish("FAIL", [f"{vmbatch} not found (build the project first)"])
            else:
                run_vm(to_run, vmbatch, xtap, release, work, workloads, args.v)

    for tid, err in broken:
        print(f"FAIL  {tid}\n    - bad test file: {err}")
    for o in outcomes:
        report(o)
    passed = sum(o.state == "PASS" for o in outcomes)
    failed = sum(o.state == "FAIL" for o in outcomes) + len(broken)
    skipped = sum(o.state == "SKIP" for o in outcomes)
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
