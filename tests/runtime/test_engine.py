#!/usr/bin/env python3
"""Self-tests of the runtime test engine's parsing and checks (no VM needed).

    python3 tests/runtime/test_engine.py
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import testfile  # noqa: E402


def parse(text):
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "grp"))
        path = os.path.join(d, "grp", "some-test.test")
        with open(path, "w") as f:
            f.write(text)
        return testfile.parse_test_file(path, d)


class ParseTest(unittest.TestCase):
    def test_prog_continuation_and_expect(self):
        t = parse("NAME n\nPROG probe begin {\n    println(1)\n  }\nEXPECT   padded\nEXPECT x\n")
        self.assertEqual(t.id, "grp/some-test")
        self.assertEqual(t.prog, "probe begin {\n  println(1)\n}\n")
        self.assertEqual(t.expect_lines, ["  padded", "x"])
        self.assertEqual(t.module_name, "t_grp_some_test")
        self.assertEqual(t.job_name, "grp.some-test")

    def test_defaults_and_numbers(self):
        t = parse("PROG p\nEXPECT_SEQ 0 9\nEXIT_STATUS 1\nTIMEOUT 5\nINTERRUPT_AFTER_MS 10\n"
                  "ARGS -DMAXACTION=5 -v\nRUN exec x 1\n")
        self.assertEqual((t.expect_seq, t.exit_status, t.timeout_s, t.interrupt_after_ms),
                         ((0, 9), 1, 5, 10))
        self.assertEqual(t.args, ["-DMAXACTION=5", "-v"])
        self.assertEqual(t.run, "exec x 1")

    def test_errors(self):
        for bad in ["PROG p\n",                         # checks nothing
                    "EXPECT x\n",                       # no program
                    "PROG p\nSCRIPT s\nEXPECT x\n",     # both
                    "PROG p\nEXPECT x\nEXPECT_SEQ 1 2\n",
                    "PROG p\nBOGUS x\n",
                    "PROG p\nTIMEOUT x\nEXPECT x\n",
                    "PROG p\nEXPECT_REGEX (\n",
                    "PROG p\nNAME a\nNAME b\nEXPECT x\n"]:
            with self.assertRaises(testfile.TestFileError, msg=bad):
                parse(bad)


    def test_flamegraph_directive(self):
        t = parse("NAME n\nPROG probe begin {}\nFLAMEGRAPH ^chacha\n")
        self.assertEqual(t.flamegraph, "^chacha")
        with self.assertRaises(testfile.TestFileError):
            parse("NAME n\nPROG probe begin {}\nFLAMEGRAPH\n")

    def test_second_script_and_build_kernel(self):
        t = parse("PROG p\nSECOND_SCRIPT b.d/second.stp\nBUILD_KERNEL other\nEXPECT x\n")
        self.assertTrue(t.second_script.endswith(os.path.join("grp", "b.d", "second.stp")))
        self.assertEqual(t.second_module_name, "t_grp_some_test_b")
        self.assertEqual(t.build_kernel, "other")
        with self.assertRaises(testfile.TestFileError):
            parse("PROG p\nBUILD_KERNEL 6.1\nEXPECT x\n")


class CompareTest(unittest.TestCase):
    def test_seq(self):
        self.assertEqual(compare.check_seq(0, 2, "0\n1\n2\n"), "")
        self.assertIn("line 2", compare.check_seq(0, 2, "0\n2\n"))
        self.assertIn("only 2 of 3", compare.check_seq(0, 2, "0\n1\n"))
        self.assertIn("extra line", compare.check_seq(0, 1, "0\n1\n2\n"))
        self.assertIn("newline", compare.check_seq(0, 0, "0"))
        self.assertEqual(compare.check_seq(0, 0, ""), "no output")

    def test_run(self):
        t = parse("PROG p\nEXPECT a\nEXPECT_STDERR_REGEX warn\n")
        ok = {"completed": "1", "exit": "0", "timed_out": "0", "module_left_loaded": "0"}
        self.assertEqual(compare.check_run(t, ok, "a\n", "a warning"), [])
        self.assertTrue(compare.check_run(t, ok, "b\n", "a warning")[0].startswith("stdout differs"))
        self.assertIn("exit status 1", compare.check_run(t, dict(ok, exit="1"), "a\n", "warn")[0])
        self.assertIn("timed out", compare.check_run(t, dict(ok, timed_out="1"), "a\n", "warn")[0])
        self.assertIn("still loaded",
                      compare.check_run(t, dict(ok, module_left_loaded="1"), "a\n", "warn")[0])
        self.assertIn("did not complete", compare.check_run(t, {}, "", "")[0])
        self.assertIn("EXPECT_STDERR_REGEX", compare.check_run(t, ok, "a\n", "")[0])
        t = parse("PROG p\nEXPECT a\nEXPECT_STDERR_NOT_REGEX probe timer\n")
        self.assertEqual(compare.check_run(t, ok, "a\n", "probe begin lost"), [])
        self.assertIn("EXPECT_STDERR_NOT_REGEX",
                      compare.check_run(t, ok, "a\n", "probe timer.ms(1) lost")[0])


class SuiteTest(unittest.TestCase):
    def test_every_test_file_parses(self):
        here = os.path.dirname(os.path.abspath(__file__))
        files = testfile.discover(here)
        self.assertGreaterEqual(len(files), 24)
        names = set()
        for f in files:
            t = testfile.parse_test_file(f, here)
            self.assertNotIn(t.module_name, names)
            names.add(t.module_name)


if __name__ == "__main__":
    unittest.main()
