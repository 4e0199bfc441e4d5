#!/usr/bin/env python3
"""Checks of the VM corpus runner's logic without a VM (and without
systemtap-doc): how an example's install check becomes a build and a run in
the guest, which examples cannot run there, and how a run is judged.
Run: python3 tests/corpus/test_corpus_vm.py"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402
import stap_vm  # noqa: E402
import vm_plan  # noqa: E402

GUEST = {"cat", "sleep", "ping", "touch", "grep", "find", "ls", "getppid_n"}
SCRATCH = tempfile.TemporaryDirectory()


def tearDownModule():
    SCRATCH.cleanup()


class Examples:
    """Example directories with scripts and metas in a scratch directory."""

    def __init__(self):
        self.top = tempfile.mkdtemp(dir=SCRATCH.name)
        self.root = os.path.join(self.top, "systemtap", "examples")

    def add(self, rel, meta=None):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("probe begin { exit() }\n")
        if meta is not None:
            with open(path[:-len(".stp")] + ".meta", "w") as f:
                f.write(meta)
        return corpus.load(os.path.relpath(path, self.top), path)


def plan_of(meta, rel="group/ex.stp", guest=GUEST):
    ex = Examples()
    e = ex.add(rel, meta)
    p, why = vm_plan.plan(e, guest)
    return p, why, ex


class Plans(unittest.TestCase):
    def test_run_time_goes_to_the_runner_capped(self):
        p, why, _ = plan_of("test_check: stap -p4 ex.stp\n"
                            "test_installcheck: stap ex.stp -T 7 bash\n")
        self.assertEqual(why, "")
        self.assertEqual(p.source, "meta")
        self.assertEqual(p.build_options, [])
        self.assertEqual(p.args, ["bash"])
        self.assertEqual(p.runner_args, ["-T", "2"])
        self.assertEqual(p.timeout_s, 2 + vm_plan.TIMEOUT_MARGIN_S)
        self.assertIn("-T 7 capped at 2", p.notes)

    def test_manifest_is_written_by_the_runtime_engine(self):
        # The runner hands its outcomes to engine.write_manifest, which reads
        # the fields of a runtime test's outcome (helper modules included).
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runtime"))
        import engine  # noqa: E402
        import run_corpus_vm  # noqa: E402
        p, why, _ = plan_of("test_installcheck: stap ex.stp -T 7 bash\n")
        self.assertEqual(why, "")
        o = run_corpus_vm.Outcome(p)
        o.module = "/host/c_ex.ko"
        path = os.path.join(SCRATCH.name, "manifest.txt")
        engine.write_manifest(path, [o], [("/usr/bin/getppid_n", "/host/getppid_n")])
        with open(path) as f:
            text = f.read()
        self.assertIn(f"job {p.job_name}\nmodule /host/c_ex.ko\narg -T\narg 2\n", text)
        self.assertNotIn("before", text)

    def test_build_options_and_target_pid(self):
        p, _, ex = plan_of("test_installcheck: stap -DMAXACTION=10000 -g ex.stp -x $$ -Itapset/\n")
        self.assertEqual(p.build_options,
                         ["-D", "MAXACTION=10000", "-g",
                          "-I", os.path.join(ex.root, "group", "tapset/")])
        self.assertEqual(p.runner_args, ["-x", "1"])  # the guest's shell is PID 1
        self.assertEqual(p.timeout_s, vm_plan.SELF_ENDING_TIMEOUT_S)

    def test_install_check_is_preferred_to_the_p4_check(self):
        p, _, _ = plan_of("test_check: stap -p4 ex.stp 1\ntest_installcheck: stap ex.stp 1 10 -T 1\n")
        self.assertEqual(p.args, ["1", "10"])

    def test_workloads_from_the_guest(self):
        p, _, _ = plan_of("""test_installcheck: stap ex.stp -c "cat /proc/sys/vm/* || true"\n""")
        self.assertEqual(p.command, "cat /proc/sys/vm/* || true")
        self.assertEqual(p.runner_args, [])
        p, _, _ = plan_of("test_installcheck: stap ex.stp -c 'sleep 5'\n")
        self.assertEqual(p.command, "sleep 2")
        p, _, _ = plan_of("test_installcheck: stap -g ex.stp -c \"touch /tmp/x 2>&1 | grep denied\"\n")
        self.assertEqual(p.command, "touch /tmp/x 2>&1 | grep denied")

    def test_workloads_the_guest_lacks(self):
        for cmd, missing in [("'strace ls || true'", "strace"), ("'stap --dump-functions'", "stap"),
                             ("'php -f hello.php'", "php"), ("\"sudo true\"", "sudo"),
                             ("\"python -c 'print(1)' || true\"", "python")]:
            p, why, _ = plan_of(f"test_installcheck: stap ex.stp -c {cmd}\n")
            self.assertIsNone(p, cmd)
            self.assertIn(f"needs {missing}", why)

    def test_command_substitution_is_not_evaluated(self):
        p, why, _ = plan_of("test_installcheck: stap ex.stp 0x`grep x /proc/kallsyms` -T 5\n")
        self.assertIsNone(p)
        self.assertIn("command substitution", why)

    def test_examples_without_an_install_check_run_briefly(self):
        p, _, _ = plan_of(None, rel="tutorial/hello.stp")
        self.assertEqual((p.source, p.runner_args), ("default", ["-T", "1"]))
        self.assertIn("it has no .meta", p.notes[0])
        p, _, _ = plan_of("test_check: stap -p4 -Itapset/ game.stp\n"
                          "test_installcheck: stap -p4 -Itapset/ game.stp\n", rel="games/game.stp")
        self.assertEqual(p.source, "default")
        self.assertEqual(p.build_options[0], "-I")
        self.assertEqual(p.runner_args, ["-T", "1"])

    def test_tapset_files_never_run(self):
        p, why, _ = plan_of(None, rel="games/tapset/lib.stp")
        self.assertIsNone(p)
        self.assertIn("tapset", why)

    def test_names(self):
        p, _, _ = plan_of("test_installcheck: stap ex-1.stp -T 1\n", rel="process/ex-1.stp")
        self.assertEqual(p.short_name, "process/ex-1")
        self.assertEqual(p.job_name, "process.ex-1")
        self.assertEqual(p.module_name, "c_process_ex_1")


class ProgramWords(unittest.TestCase):
    def test_each_simple_command(self):
        self.assertEqual(vm_plan.program_words("cat /proc/sys/vm/* || true"), ["cat", "true"])
        self.assertEqual(vm_plan.program_words("find /proc >/dev/null || true"), ["find", "true"])
        self.assertEqual(vm_plan.program_words("A=1 ls | grep x; echo"), ["ls", "grep", "echo"])


class Verdicts(unittest.TestCase):
    def setUp(self):
        self.plan, _, self.ex = plan_of("test_installcheck: stap ex.stp -T 1\n")

    def test_clean_run(self):
        status = {"completed": "1", "exit": "0", "timed_out": "0", "module_left_loaded": "0"}
        self.assertEqual(vm_plan.judge(self.plan, status, "x\n", "", []), [])

    def test_each_failure(self):
        self.assertIn("did not complete", vm_plan.judge(self.plan, {}, "", "", [])[0])
        r = vm_plan.judge(self.plan, {"completed": "1", "exit": "1"}, "", "xtap-run: ERROR: oops\n", [])
        self.assertEqual(r, ["xtap-run exit status 1: xtap-run: ERROR: oops"])
        r = vm_plan.judge(self.plan, {"completed": "1", "timed_out": "1", "exit": "-1"}, "", "", [])
        self.assertIn("did not end within 21 s", r[0])
        r = vm_plan.judge(self.plan, {"completed": "1", "exit": "0", "module_left_loaded": "1"}, "", "", [])
        self.assertIn("still loaded", r[0])
        r = vm_plan.judge(self.plan, {"completed": "1", "exit": "0"}, "", "", ["WARNING: CPU: 0"])
        self.assertEqual(r, ["kernel log: WARNING: CPU: 0"])

    def test_expected_output(self):
        self.plan.expect_regex = [r"^hello world$"]
        ok = {"completed": "1", "exit": "0"}
        self.assertEqual(vm_plan.judge(self.plan, ok, "hello world\n", "", []), [])
        self.assertIn("does not match", vm_plan.judge(self.plan, ok, "hello\n", "", [])[0])

    def test_problems_by_job(self):
        self.assertEqual(vm_plan.problems_by_job("a\tBUG: x\n-\tOops\na\tCall Trace\n"),
                         {"a": ["BUG: x", "Call Trace"], "-": ["Oops"]})


class StapJobs(unittest.TestCase):
    def test_staprun_gets_the_target_and_the_workload(self):
        p, _, _ = plan_of("test_installcheck: stap -g ex.stp -x $$ -c 'sleep 1'\n")
        self.assertEqual(stap_vm.job_lines(p, "/w/s_group_ex.ko"),
                         ["job s.group.ex", "command staprun -x 1 -c 'sleep 1' /stap/s_group_ex.ko",
                          f"timeout {p.timeout_s}"])
        self.assertEqual(stap_vm.module_name(p), "s_group_ex")


if __name__ == "__main__":
    unittest.main()
