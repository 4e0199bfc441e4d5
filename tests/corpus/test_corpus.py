#!/usr/bin/env python3
"""Checks of the corpus runner's own logic (no systemtap-doc needed):
how .meta commands become options and arguments, and how failures are
grouped into causes. Run: python3 tests/corpus/test_corpus.py"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402
import run_corpus  # noqa: E402


def parse(line, script):
    words = corpus.stap_words(corpus.split_command(line))
    return corpus.parse_stap_words(words, script) if words is not None else None


class MetaCommands(unittest.TestCase):
    def test_clustered_flags_and_attached_values(self):
        self.assertEqual(parse("stap -gp4 threadstacks.stp -Gsize=65536 -d `which stap`",
                               "threadstacks.stp"),
                         (["-g", "-G", "size=65536", "-d", "/usr/bin/stap"], []))
        self.assertEqual(parse("stap -p4 -Itapset/ block.stp", "block.stp"),
                         (["-I", "tapset/"], []))
        self.assertEqual(parse("stap -DMAXACTION=10000 -g psig.stp -x $$", "psig.stp"),
                         (["-D", "MAXACTION=10000", "-g", "-x", "1"], []))

    def test_pass_and_output_options_are_dropped(self):
        self.assertEqual(parse("stap -w -p4 perf.stp", "perf.stp"), (["-w"], []))
        self.assertEqual(parse("stap -o /tmp/switchfile.stp.out switchfile.stp -T 8",
                               "switchfile.stp"), (["-T", "8"], []))
        self.assertEqual(parse("stap --bpf -p4 syscallsrw.stp", "syscallsrw.stp"), ([], []))

    def test_arguments_keep_their_quoting_and_dollars(self):
        self.assertEqual(
            parse("""stap -wp4 varwatch.stp 'kernel.statement("do_sys_open@fs/open.c:*")' '$$vars'""",
                  "varwatch.stp"),
            (["-w"], ['kernel.statement("do_sys_open@fs/open.c:*")', "$$vars"]))
        self.assertEqual(parse("stap whythefail.stp kernel do_sys_open '$return < 0' -c 'cat x || true'",
                               "whythefail.stp"),
                         (["-c", "cat x || true"], ["kernel", "do_sys_open", "$return < 0"]))
        self.assertEqual(parse("stap tcpipstat.stp timeout=1", "tcpipstat.stp"),
                         ([], ["timeout=1"]))

    def test_shell_around_the_command(self):
        self.assertEqual(parse("stap -p4 ltrace.stp -c ls || echo PR14738", "ltrace.stp"),
                         (["-c", "ls"], []))
        self.assertEqual(parse("""echo "FILE '</usr/include/stdio.h>'" | stap sizeof_interactive.stp -T 1""",
                               "sizeof_interactive.stp"), (["-T", "1"], []))
        self.assertEqual(parse("PYTHONPATH=$PYEXECDIR stap -g --suppress-time-limits "
                               "-c '/usr/bin/python3 -m HelperSDT pyexample.py 35' pyexample.stp python3",
                               "pyexample.stp"),
                         (["-g", "--suppress-time-limits", "-c",
                           "/usr/bin/python3 -m HelperSDT pyexample.py 35"], ["python3"]))
        self.assertEqual(parse("""stap --all-modules -p4 hw_watch_addr.stp 0x`grep "vm_dirty_ratio" /proc/kallsyms | awk '{print $1}'`""",
                               "hw_watch_addr.stp"),
                         (["--all-modules"], ["0x" + corpus.FIXED_ADDRESS]))

    def test_not_a_stap_command(self):
        self.assertIsNone(parse("./socktop -D", "socktop.stp"))
        self.assertIsNone(parse("stap -p4 other.stp", "mine.stp"))


class MetaFiles(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.d = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text=""):
        path = os.path.join(self.d, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_test_check_comes_first(self):
        path = self.write("a.stp")
        self.write("a.meta", "title: A\ntest_installcheck: stap a.stp -T 1\n"
                             "test_check: stap -p4 a.stp 7\n")
        e = corpus.load("x/a.stp", path)
        self.assertEqual((e.meta_key, e.options, e.args), ("test_check", [], ["7"]))
        self.assertEqual(e.command("xtap", "REL"), ["xtap", "-p2", "-r", "REL", "a.stp", "7"])

    def test_a_meta_of_another_name_that_runs_the_script(self):
        path = self.write("pyexample.stp")
        self.write("py2example.meta", "test_check: stap -p4 pyexample.stp python2\n")
        self.write("py3example.meta", "test_check: stap -p4 pyexample.stp python3\n")
        e = corpus.load("x/pyexample.stp", path)
        self.assertEqual((os.path.basename(e.meta), e.args), ("py3example.meta", ["python3"]))

    def test_installcheck_when_check_is_not_stap(self):
        path = self.write("b.stp")
        self.write("b.meta", "test_check: file ./b\ntest_installcheck_bpf: stap --bpf b.stp -T 1\n")
        e = corpus.load("x/b.stp", path)
        self.assertEqual((e.meta_key, e.options), ("test_installcheck_bpf", ["-T", "1"]))

    def test_no_meta(self):
        e = corpus.load("x/c.stp", self.write("c.stp"))
        self.assertEqual((e.meta, e.options, e.args), (None, [], []))


class Causes(unittest.TestCase):
    def test_diagnostics_are_parsed_in_order(self):
        stderr = ("iotop.stp:5:7: error[XTP2100]: unknown probe point 'vfs.read.return'\n"
                  "  probe vfs.read.return {\n"
                  "  hint: known probe points: begin\n"
                  "iotop.stp:9:1: error[XTP2200]: unknown function 'foo'\n")
        self.assertEqual(run_corpus.parse_errors(stderr),
                         [("XTP2100", "unknown probe point 'vfs.read.return'", "iotop.stp:5",
                           "probe vfs.read.return {"),
                          ("XTP2200", "unknown function 'foo'", "iotop.stp:9", "")])

    def test_other_errors_keep_their_first_line(self):
        self.assertEqual(run_corpus.parse_errors("The following argument was not expected: --ldd\nRun with --help\n"),
                         [("cli", "The following argument was not expected: --ldd", "", "")])

    def test_cause_and_detail(self):
        msg = "unknown probe point 'kernel.function(\"vfs_read\").return'"
        self.assertEqual(run_corpus.cause("XTP2100", msg), "XTP2100 unknown probe point '…'")
        self.assertEqual(run_corpus.detail("XTP2100", msg), 'kernel.function("…").return')
        self.assertEqual(run_corpus.detail("XTP2100", "unknown probe point 'syscall.open'"), "syscall.*")
        self.assertEqual(run_corpus.detail("XTP2100", "unknown probe point 'timer.ms(100)'"), "timer.ms(N)")
        self.assertEqual(run_corpus.detail("XTP2200", "unknown function 'foo'"), "foo")
        msg = "expected 'probe', 'global' or 'function', found '%'"
        self.assertEqual(run_corpus.cause("XTP1010", msg),
                         "XTP1010 expected 'probe', 'global' or 'function', found '…'")
        self.assertEqual(run_corpus.detail("XTP1010", msg), "%")
        self.assertEqual(run_corpus.cause("XTP1036", "script argument $1 is missing: 0 given"),
                         "XTP1036 script argument $N is missing: N given")


class WithoutTheCorpus(unittest.TestCase):
    def test_skips_cleanly(self):
        import contextlib
        import io
        saved_roots, saved_argv = corpus.ROOTS, sys.argv
        corpus.ROOTS = ["/nonexistent/systemtap/examples"]
        sys.argv = ["run_corpus.py"]
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                status = run_corpus.main()
        finally:
            corpus.ROOTS, sys.argv = saved_roots, saved_argv
        self.assertEqual(status, 0)
        self.assertIn("systemtap-doc is not installed", out.getvalue())
        self.assertTrue(out.getvalue().endswith("corpus: 0 passed, 0 failed\n"))


if __name__ == "__main__":
    unittest.main()
