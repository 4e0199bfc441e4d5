#!/usr/bin/env python3
"""Run the systemtap-doc examples xtap accepts in one VM boot, and compare.

    python3 tests/corpus/run_corpus_vm.py [--build build] [--kernel REL]
        [-j N] [-v] [--update] [--all] [--list] [--stap] [--work DIR] [FILTER...]

The candidates are the examples of tests/corpus/xtap-p2-expected.txt (with
--all: every example). Each runs as its .meta's install check says, with the
changes vm_plan.py describes (-T capped at 2 s, workloads from the guest's
busybox). Every module is built on the host at -p4 for the 6.1 cloud kernel
(-j N at a time, through xtap's module cache), then one xtap-vmbatch
manifest runs them all in one boot of that kernel. An example runs cleanly
when xtap-run exits 0 within its time limit, its module is unloaded, the
kernel log shows no problem during its job, and, for the few with a
deterministic line, the output matches.

Compared with tests/corpus/xtap-vm-expected.txt: a listed example that does
not run cleanly is a regression (exit status 1); one that runs but is not
listed is printed as newly running (--update adds it), so the list only
grows. Ends with `corpus-vm: N passed, N failed` (listed examples that run;
regressions). Without systemtap-doc it says so and prints `corpus-vm: 0
passed, 0 failed`; without a VM kernel the listed examples count as failed.
"""

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "runtime"))
import corpus  # noqa: E402
import engine  # noqa: E402  (kernel choice, workloads, manifest, results)
import run_corpus  # noqa: E402  (release choice, the expected lists)
import stap_vm  # noqa: E402  (--stap: stap's runs in the same boot)
import vm_plan  # noqa: E402

EXPECTED_LIST = os.path.join(HERE, "xtap-vm-expected.txt")
BUILD_TIMEOUT_S = 300


class Outcome:
    """A plan's build and run; shaped like the runtime engine's outcomes so
    that engine.write_manifest writes its job."""

    def __init__(self, plan):
        self.plan = plan
        self.module = None
        self.reasons = []      # why it did not run cleanly; [] = ran
        self.stage = ""        # "build" or "run" when it failed
        self.elapsed_ms = None
        self.out = ""
        self.err = ""
        self.helper_ko = None  # examples load no helper module of the runtime tests
        self.second_ko = None  # nor a second session's module (SECOND_SCRIPT)

    @property
    def test(self):
        # What engine.write_manifest reads of a runtime test.
        p = self.plan
        return argparse.Namespace(job_name=p.job_name, runner_args=p.runner_args,
                                  run=p.command, timeout_s=p.timeout_s,
                                  interrupt_after_ms=-1, interrupt_signal="INT", after="",
                                  before="", helper_module=None, stdin="")

    @property
    def ran(self):
        return self.module is not None and not self.reasons and self.stage == "ok"


def guest_programs(busybox="/bin/busybox"):
    """The programs the guest has: busybox's applets and the workloads."""
    names = {os.path.splitext(f)[0] for f in os.listdir(os.path.join(REPO, "tests/runtime/workloads"))
             if f.endswith(".c")}
    try:
        out = subprocess.run([busybox, "--list"], capture_output=True, text=True, timeout=10).stdout
        names |= set(out.split())
    except OSError:
        pass
    return names


def build(o, xtap, release, work):
    p = o.plan
    d = os.path.join(work, p.job_name)
    os.makedirs(d, exist_ok=True)
    cmd = ([xtap, "-p4", "-r", release, "-m", p.module_name] + p.build_options
           + [p.example.path] + p.args)
    with open(os.path.join(d, "build.cmd"), "w") as f:
        f.write(f"cd {p.example.directory} && " + " ".join(cmd) + "\n")
    code, out, err = engine.run(cmd, d, BUILD_TIMEOUT_S)
    ko = os.path.join(d, p.module_name + ".ko")
    if code != 0 or not os.path.isfile(ko):
        first = next((l.strip() for l in err.splitlines() if "error" in l), "") or \
            next((l.strip() for l in (err + out).splitlines() if l.strip()), f"exit {code}")
        o.stage = "build"
        o.reasons = [f"build failed: {first}"]
        o.err = err
        return
    o.module = ko


def run_vm(outcomes, vmbatch, release, work, files, verbose, stap_runs=()):
    """One boot for OUTCOMES (xtap) and STAP_RUNS (stap's, run by staprun);
    judges both. Returns the seconds the VM took."""
    manifest = os.path.join(work, "manifest.txt")
    results = os.path.join(work, "results")
    shutil.rmtree(results, ignore_errors=True)
    engine.write_manifest(manifest, outcomes, files)
    with open(manifest, "a") as f:
        for o in stap_runs:
            f.write("\n".join(stap_vm.job_lines(o.plan, o.module)) + "\n")
    cmd = [vmbatch, "--kernel", release] + (["-v"] if verbose else []) + [manifest, results]
    print(f"vm: {len(outcomes)} example(s)" + (f" and {len(stap_runs)} under stap" if stap_runs else "")
          + f" in one {release} boot", flush=True)
    start = time.monotonic()
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True)
    batch = engine.read_status(os.path.join(results, "batch.txt"))
    elapsed = time.monotonic() - start
    print(f"vm: done in {elapsed:.1f} s (boot {batch.get('boot_s', '?')} s), "
          f"xtap-vmbatch exit {p.returncode}", flush=True)
    if p.returncode not in (0, 1):
        err = p.stderr.decode(errors="replace")
        sys.stdout.write("".join("    " + line + "\n" for line in err.splitlines()[-20:]))
    problems = vm_plan.problems_by_job(engine.read_text(os.path.join(results, "problems.txt")))
    outside = problems.get("-", [])
    if outside:
        print(f"vm: {len(outside)} kernel problem line(s) outside any job "
              f"({os.path.join(results, 'kernel.log')}); every example fails:")
        for text in outside[:10]:
            print(f"    {text}")
    for o, job in [(o, o.plan.job_name) for o in outcomes] + \
            [(o, stap_vm.job_name(o.plan)) for o in stap_runs]:
        base = os.path.join(results, job)
        status = engine.read_status(base + ".status")
        o.out, o.err = engine.read_text(base + ".out"), engine.read_text(base + ".err")
        if status.get("elapsed_ms", "-1") not in ("", "-1"):
            o.elapsed_ms = int(status["elapsed_ms"])
        o.reasons = vm_plan.judge(o.plan, status, o.out, o.err, problems.get(job, []) + outside)
        o.stage = "run" if o.reasons else "ok"
    return elapsed


def build_with_stap(outcomes, release, work, jobs):
    """stap's build of every plan (Outcome objects of their own)."""
    setup = stap_vm.setup(release, work)
    runs = [Outcome(o.plan) for o in outcomes]
    start = time.monotonic()

    def one(o):
        o.module, why = stap_vm.build(o.plan, setup, work)
        if not o.module:
            o.stage, o.reasons = "build", [f"stap build failed: {why}"]
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        list(pool.map(one, runs))
    print(f"stap: {sum(1 for o in runs if o.module)} of {len(runs)} built in "
          f"{time.monotonic() - start:.1f} s", flush=True)
    return runs


def report_stap(outcomes, stap_runs):
    if not stap_runs:
        return
    stap_by = {o.plan.example.rel: o for o in stap_runs}
    stap_ok = [o.plan.example.rel for o in stap_runs if o.ran]
    both = [o.plan.example.rel for o in outcomes if o.ran and o.plan.example.rel in stap_ok]
    print()
    print(f"stap: {len(stap_ok)} of {len(stap_runs)} run cleanly under stap 4.8; xtap runs "
          f"{len(both)} of those {len(stap_ok)}")
    for o in outcomes:
        s = stap_by[o.plan.example.rel]
        if s.ran != o.ran:
            print(f"  {o.plan.short_name}: xtap {'runs' if o.ran else 'fails'}, "
                  f"stap {'runs' if s.ran else 'fails: ' + '; '.join(s.reasons)[:200]}")


def print_failure(o, indent="    "):
    for r in o.reasons:
        print(f"{indent}- {r}")
    lines = [l for l in o.err.splitlines() if l.strip()]
    if o.stage == "run" and lines:
        for l in lines[:6]:
            print(f"{indent}  | {l[:160]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"),
                    help="CMake build dir with cli/xtap, xtap-run, xtap-vmbatch")
    ap.add_argument("--kernel", default="", help="VM kernel (default: the 6.1 cloud kernel)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel module builds (2)")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per example, and its output")
    ap.add_argument("--expected", default=EXPECTED_LIST, help="the expected list (default: %(default)s)")
    ap.add_argument("--update", action="store_true",
                    help="add newly running examples to xtap-vm-expected.txt")
    ap.add_argument("--all", action="store_true",
                    help="try every example, not only those of xtap-p2-expected.txt")
    ap.add_argument("--list", action="store_true", help="print each example's plan and exit")
    ap.add_argument("--stap", action="store_true",
                    help="also build each example with stap 4.8 and run it under staprun in the "
                         "same boot (needs systemtap and the kernel's -dbg package; not in CI)")
    ap.add_argument("--work", help="work directory, emptied first (default: BUILD/corpus-vm)")
    ap.add_argument("filters", nargs="*", help="only examples whose path contains one")
    opts = ap.parse_args()
    started = time.monotonic()

    examples = corpus.discover()
    if not examples:
        print("corpus-vm: systemtap-doc is not installed: skipped")
        print("corpus-vm: 0 passed, 0 failed")
        return 0
    accepted = run_corpus.read_expected(run_corpus.EXPECTED_LIST)
    if not opts.all:
        examples = [e for e in examples if e.rel in accepted]
    if opts.filters:
        examples = [e for e in examples if any(f in e.rel for f in opts.filters)]
    expected = run_corpus.read_expected(opts.expected)

    programs = guest_programs()
    plans, not_runnable = [], []
    for e in examples:
        p, why = vm_plan.plan(e, programs)
        if p:
            plans.append(p)
        else:
            not_runnable.append((e.rel, why))
    if opts.list:
        for p in plans:
            print(f"{p.short_name}: xtap {' '.join(p.build_options)} SCRIPT {' '.join(p.args)}"
                  f" | xtap-run {' '.join(p.runner_args)}"
                  + (f" -c {p.command!r}" if p.command else "") + f" | timeout {p.timeout_s}"
                  + "".join(f"\n    ({n})" for n in p.notes))
        for rel, why in not_runnable:
            print(f"{rel}: not run: {why}")
        return 0

    release = opts.kernel or run_corpus.pick_release(run_corpus.DEFAULT_RELEASE)
    release, why = engine.find_vm_kernel(release)
    if release is None:
        print(f"corpus-vm: no VM kernel ({why}): skipped")
        print(f"corpus-vm: 0 passed, {len(expected & {p.example.rel for p in plans})} failed")
        return 1 if expected else 0
    xtap = os.path.join(opts.build, "cli", "xtap")
    vmbatch = os.path.join(opts.build, "cli", "xtap-vmbatch")
    for tool in (xtap, vmbatch):
        if not os.access(tool, os.X_OK):
            print(f"corpus-vm: no {tool} (build first)")
            print("corpus-vm: 0 passed, 1 failed")
            return 1
    work = os.path.abspath(opts.work or os.path.join(opts.build, "corpus-vm"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    outcomes = [Outcome(p) for p in plans]
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max(1, opts.jobs)) as pool:
        list(pool.map(lambda o: build(o, xtap, release, work), outcomes))
    build_s = time.monotonic() - start
    built = [o for o in outcomes if o.module]
    print(f"build: {len(built)} of {len(outcomes)} example(s) built in {build_s:.1f} s "
          f"(-j {opts.jobs}, xtap -p4 -r {release})", flush=True)

    stap_runs = []
    if opts.stap:
        if not stap_vm.available():
            print("stap: not installed (apt-get install systemtap): xtap only")
        else:
            stap_runs = build_with_stap(outcomes, release, work, opts.jobs)

    vm_s = 0.0
    if built or stap_runs:
        needed = {w for o in outcomes for w in vm_plan.program_words(o.plan.command) or []}
        files = []
        if needed & {os.path.splitext(f)[0] for f in os.listdir(os.path.join(REPO, "tests/runtime/workloads"))}:
            files = engine.build_workloads(work, max(1, opts.jobs))
        if stap_runs:
            files += stap_vm.guest_files([o.module for o in stap_runs if o.module])
        vm_s = run_vm(built, vmbatch, release, work, files, opts.verbose,
                      [o for o in stap_runs if o.module])

    names = [o.plan.example.rel for o in outcomes]
    by_name = {o.plan.example.rel: o for o in outcomes}
    if opts.verbose:
        print()
        for o in outcomes:
            t = f" ({o.elapsed_ms / 1000:.1f}s)" if o.elapsed_ms is not None else ""
            print(f"{'RUN ' if o.ran else 'FAIL'} {o.plan.short_name}{t}")
            if not o.ran:
                print_failure(o)
            if o.out.strip():
                lines = o.out.splitlines()
                for l in lines[:4]:
                    print(f"      > {l[:160]}")
                if len(lines) > 4:
                    print(f"      > … {len(lines) - 4} more lines")

    ran = [n for n in names if by_name[n].ran]
    still = [n for n in ran if n in expected]
    new = [n for n in ran if n not in expected]
    regressions = [n for n in names if n in expected and not by_name[n].ran]
    not_run_listed = [rel for rel, _ in not_runnable if rel in expected]
    regressions += not_run_listed
    from_meta = sum(1 for n in ran if by_name[n].plan.source == "meta")

    print()
    print(f"corpus-vm: {len(ran)} of {len(examples)} candidate examples run cleanly in the VM "
          f"({from_meta} by their .meta install check, {len(ran) - from_meta} without one, as "
          f"`stap SCRIPT -T 1`); {len(not_runnable)} cannot run in the guest, "
          f"{sum(1 for o in outcomes if o.stage == 'build')} do not build, "
          f"{sum(1 for o in outcomes if o.stage == 'run')} fail in the VM")
    if not_runnable:
        print()
        print("cannot run in the guest:")
        for rel, why in not_runnable:
            print(f"  {rel}: {why}")
    failed = [o for o in outcomes if not o.ran]
    if failed:
        print()
        print("do not run cleanly:")
        for o in failed:
            print(f"  {o.plan.example.rel}" + (" (LISTED)" if o.plan.example.rel in expected else ""))
            print_failure(o)
    if new:
        print()
        print("newly running — add to tests/corpus/xtap-vm-expected.txt"
              + (" (done: --update)" if opts.update else " (or run with --update)") + ":")
        for n in new:
            print(f"  {n}")
        if opts.update:
            run_corpus.write_expected(opts.expected, expected | set(new))
    if regressions:
        print()
        print(f"REGRESSIONS: {len(regressions)} listed examples do not run:")
        for n in regressions:
            o = by_name.get(n)
            print(f"  {n}: " + ("; ".join(o.reasons) if o else "not run: " +
                                dict(not_runnable)[n]))
    if opts.stap:
        report_stap(outcomes, stap_runs)
    print(f"\ncorpus-vm: build {build_s:.0f} s + VM {vm_s:.0f} s, {time.monotonic() - started:.0f} s in all")
    print(f"corpus-vm: {len(still)} passed, {len(regressions)} failed")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
