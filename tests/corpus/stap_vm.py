"""stap's own runs of the VM corpus, in the same boot as xtap's (not in CI).

run_corpus_vm.py --stap builds each planned example with stap 4.8 as well
(`stap -p4 -r TREE -R RUNTIME -m s_NAME`), ships staprun, stapio and their
libraries into the guest (tests/stapcompare's set-up, bench/peers.py),
and adds one job per module that runs `staprun [-x PID] [-c CMD] MODULE`. stap's
-T is a translator option (it adds a timer that calls exit()), so it goes to
the build. The result is judged like xtap's: exit status 0, no kernel problem
during the job, the expected output.

Needs Debian's systemtap package and linux-image-RELEASE-dbg (System.map,
vmlinux): the tree and stap's cache are stap_baseline.py's.
"""

import os
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "bench"))
import peers as bench  # noqa: E402  (patched runtime, guest files)
import stap_baseline  # noqa: E402  (the build tree, stap's cache)

BUILD_TIMEOUT_S = 600


def available():
    return shutil.which("stap") is not None and shutil.which("staprun") is not None


def setup(release, work):
    """(env, tree, runtime) for stap builds; raises SystemExit when the -dbg
    package is missing."""
    tree = stap_baseline.kernel_tree(release, f"/tmp/xtap-stap-tree-{release}")
    env = dict(os.environ, LC_ALL="C", SYSTEMTAP_DIR=f"/tmp/xtap-stap-home-{release}")
    os.makedirs(env["SYSTEMTAP_DIR"], exist_ok=True)
    runtime = os.path.join(work, "stap-runtime")
    shutil.rmtree(runtime, ignore_errors=True)
    shutil.copytree("/usr/share/systemtap/runtime", runtime)
    twc = os.path.join(runtime, "stp_task_work.c")
    with open(twc) as f:
        src = f.read()
    with open(twc, "w") as f:
        # The 6.1 stable backport renamed it (bench/peers.py).
        f.write(src.replace("twork = task_work_cancel(task, func);",
                            "twork = task_work_cancel_func(task, func);"))
    return env, tree, runtime


def module_name(plan):
    return ("s" + plan.module_name[1:])[:55]


def build(plan, setup_values, work):
    """The stap module's path, or (None, first error line)."""
    env, tree, runtime = setup_values
    d = os.path.join(work, "stap", plan.job_name)
    os.makedirs(d, exist_ok=True)
    runner = list(plan.runner_args)
    build_time = []
    if "-T" in runner:
        i = runner.index("-T")
        build_time = ["-T", runner[i + 1]]
    cmd = (["stap", "-p4", "-r", tree, "-R", runtime, "-m", module_name(plan)] + build_time
           + plan.build_options + [plan.example.path] + plan.args)
    try:
        p = subprocess.run(cmd, cwd=d, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, errors="replace", timeout=BUILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"stap -p4 timed out after {BUILD_TIMEOUT_S} s"
    ko = os.path.join(d, module_name(plan) + ".ko")
    if p.returncode != 0 or not os.path.isfile(ko):
        return None, stap_baseline.first_error(p.stderr)
    return ko, ""


def guest_files(modules):
    """(guest path, host path) of staprun, stapio, their libraries and MODULES."""
    pairs = [tuple(line.split(" ", 2)[1:]) for line in bench.stap_guest_files()]
    return pairs + [(guest_module(ko), ko) for ko in modules]


def guest_module(ko):
    return f"/stap/{os.path.basename(ko)}"


def job_name(plan):
    return "s." + plan.job_name


def job_lines(plan, ko):
    """The xtap-vmbatch job that runs KO under staprun."""
    guest_ko = guest_module(ko)
    words = ["staprun"]
    if "-x" in plan.runner_args:
        words += ["-x", plan.runner_args[plan.runner_args.index("-x") + 1]]
    if plan.command:
        words += ["-c", plan.command]
    words.append(guest_ko)
    return [f"job {job_name(plan)}",
            f"command {shlex.join(words)}", f"timeout {plan.timeout_s}"]
