"""Parsing of runtime test files (tests/runtime/<group>/<name>.test).

The format is described in docs/testing.md. One test per file; a directive a
line, KEYWORD then one space then its value. PROG may continue on indented
lines. '#' at the start of a line is a comment.
"""

import os
import re
import shlex
import textwrap

# Directives that may appear more than once (their values accumulate).
REPEATABLE = {"EXPECT", "EXPECT_REGEX", "EXPECT_NOT_REGEX", "EXPECT_STDERR_REGEX",
              "EXPECT_STDERR_NOT_REGEX", "REQUIRES"}
SINGLE = {
    "NAME", "PROG", "SCRIPT", "ARGS", "SCRIPT_ARGS", "RUN", "RUNNER_ARGS", "EXPECT_FILE", "EXPECT_SEQ",
    "EXIT_STATUS", "TIMEOUT", "INTERRUPT_AFTER_MS", "INTERRUPT_SIGNAL", "AFTER", "BEFORE",
    "BUILD_FAIL_REGEX", "HELPER_MODULE", "STDIN", "FLAMEGRAPH", "SECOND_SCRIPT", "BUILD_KERNEL",
}
CONTINUABLE = {"PROG"}

DEFAULT_TIMEOUT_S = 30


class TestFileError(Exception):
    pass


class Test:
    def __init__(self, path, group, stem):
        self.path = path
        self.group = group
        self.stem = stem
        self.id = f"{group}/{stem}"
        self.name = stem
        self.prog = None
        self.script = None            # absolute path of SCRIPT
        self.args = []                # extra xtap options
        self.script_args = []         # the script's own arguments (@1, $1 ...)
        self.run = ""                 # guest workload (-c)
        self.runner_args = []         # extra xtap-run options
        self.expect_lines = None      # list of lines, or None
        self.expect_file = None
        self.expect_seq = None        # (first, last)
        self.expect_regex = []
        self.expect_not_regex = []
        self.expect_stderr_regex = []
        self.expect_stderr_not_regex = []
        self.exit_status = 0
        self.timeout_s = DEFAULT_TIMEOUT_S
        self.interrupt_after_ms = -1
        self.interrupt_signal = "INT"  # INT, TERM or KILL
        self.after = ""                # guest sh command once xtap-run has ended
        self.before = ""               # guest sh command before xtap-run starts
        self.helper_module = ""        # tests/runtime/helpers/NAME, built and loaded first
        self.stdin = ""                # xtap-run's standard input, printf-escaped (\n)
        self.requires = []
        self.build_fail_regex = None
        self.flamegraph = None         # regex of the hottest leaf frame (xtap --from-stacks on the host)
        self.second_script = None      # absolute path of SECOND_SCRIPT
        self.build_kernel = ""         # "other": build for another kernel than the VM's

    @property
    def job_name(self):
        """Name of the VM job: [A-Za-z0-9_.-]."""
        return re.sub(r"[^A-Za-z0-9_.-]", "_", self.id.replace("/", "."))

    @property
    def module_name(self):
        """A C identifier, short enough for the kernel's module name limit."""
        name = "t_" + re.sub(r"[^A-Za-z0-9_]", "_", self.id.replace("/", "_"))
        return name[:55]

    @property
    def second_module_name(self):
        """SECOND_SCRIPT's module: in the guest as /lib/xtap/<this>.ko."""
        return self.module_name[:53] + "_b"


def _split_directive(line):
    m = re.match(r"([A-Z_]+)(?: (.*))?$", line)
    if not m:
        return None, None
    return m.group(1), m.group(2) if m.group(2) is not None else ""


def _int(test, key, value):
    try:
        return int(value)
    except ValueError:
        raise TestFileError(f"{test.path}: {key} needs a number, got '{value}'")


def parse_test_file(path, root):
    rel = os.path.relpath(path, root)
    group = os.path.dirname(rel) or "."
    stem = os.path.splitext(os.path.basename(rel))[0]
    test = Test(path, group, stem)
    seen = set()
    current = None  # directive being continued
    prog_lines = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for lineno, raw in enumerate(lines, 1):
        where = f"{path}:{lineno}"
        if raw.startswith("#"):
            current = None
            continue
        if raw[:1] in (" ", "\t"):
            if current in CONTINUABLE:
                prog_lines.append(raw)
                continue
            if raw.strip() == "":
                continue
            raise TestFileError(f"{where}: indented line outside PROG")
        if raw.strip() == "":
            current = None
            continue
        key, value = _split_directive(raw)
        if key is None or (key not in SINGLE and key not in REPEATABLE):
            raise TestFileError(f"{where}: unknown directive '{raw.split()[0]}'")
        if key in SINGLE and key in seen:
            raise TestFileError(f"{where}: {key} given twice")
        seen.add(key)
        current = key
        if key == "NAME":
            test.name = value
        elif key == "PROG":
            prog_lines = [value]
        elif key == "SCRIPT":
            test.script = os.path.join(os.path.dirname(path), value)
        elif key == "ARGS":
            # $TESTDIR: the test file's directory (for -I DIR next to it).
            test.args = [a.replace("$TESTDIR", os.path.dirname(os.path.abspath(path)))
                         for a in shlex.split(value)]
        elif key == "SCRIPT_ARGS":
            test.script_args = shlex.split(value)
        elif key == "RUN":
            test.run = value
        elif key == "RUNNER_ARGS":
            test.runner_args = shlex.split(value)
        elif key == "EXPECT":
            test.expect_lines = (test.expect_lines or []) + [value]
        elif key == "EXPECT_FILE":
            test.expect_file = os.path.join(os.path.dirname(path), value)
        elif key == "EXPECT_SEQ":
            parts = value.split()
            if len(parts) != 2:
                raise TestFileError(f"{where}: EXPECT_SEQ needs FIRST LAST")
            test.expect_seq = (_int(test, key, parts[0]), _int(test, key, parts[1]))
        elif key == "FLAMEGRAPH":
            if not value:
                raise TestFileError(f"{where}: FLAMEGRAPH needs a regex of the hottest leaf frame")
            test.flamegraph = value
        elif key == "EXPECT_REGEX":
            test.expect_regex.append(value)
        elif key == "EXPECT_NOT_REGEX":
            test.expect_not_regex.append(value)
        elif key == "EXPECT_STDERR_REGEX":
            test.expect_stderr_regex.append(value)
        elif key == "EXPECT_STDERR_NOT_REGEX":
            test.expect_stderr_not_regex.append(value)
        elif key == "EXIT_STATUS":
            test.exit_status = _int(test, key, value)
        elif key == "TIMEOUT":
            test.timeout_s = _int(test, key, value)
        elif key == "INTERRUPT_AFTER_MS":
            test.interrupt_after_ms = _int(test, key, value)
        elif key == "INTERRUPT_SIGNAL":
            if value not in ("INT", "TERM", "KILL"):
                raise TestFileError(f"{test.path}: INTERRUPT_SIGNAL takes INT, TERM or KILL, not '{value}'")
            test.interrupt_signal = value
        elif key == "AFTER":
            test.after = value
        elif key == "BEFORE":
            test.before = value
        elif key == "HELPER_MODULE":
            if not re.match(r"^[A-Za-z0-9_]+$", value):
                raise TestFileError(f"{where}: HELPER_MODULE takes a module name")
            test.helper_module = value
        elif key == "STDIN":
            test.stdin = value
        elif key == "REQUIRES":
            test.requires.append(value)
        elif key == "BUILD_FAIL_REGEX":
            test.build_fail_regex = value
        elif key == "SECOND_SCRIPT":
            test.second_script = os.path.join(os.path.dirname(path), value)
        elif key == "BUILD_KERNEL":
            if value != "other":
                raise TestFileError(f"{where}: BUILD_KERNEL takes 'other'")
            test.build_kernel = value

    if "PROG" in seen:
        first, rest = prog_lines[0], textwrap.dedent("\n".join(prog_lines[1:]))
        test.prog = "\n".join([first] + ([rest] if rest else [])) + "\n"
    if (test.prog is None) == (test.script is None):
        raise TestFileError(f"{path}: needs exactly one of PROG and SCRIPT")
    for r in test.expect_regex + test.expect_not_regex + test.expect_stderr_regex + \
            test.expect_stderr_not_regex + (
            [test.build_fail_regex] if test.build_fail_regex else []):
        try:
            re.compile(r)
        except re.error as e:
            raise TestFileError(f"{path}: bad regex '{r}': {e}")
    if test.flamegraph:
        try:
            re.compile(test.flamegraph)
        except re.error as e:
            raise TestFileError(f"{path}: bad FLAMEGRAPH regex '{test.flamegraph}': {e}")
    expectations = [test.expect_lines is not None, test.expect_file is not None,
                     test.expect_seq is not None]
    if sum(expectations) > 1:
        raise TestFileError(f"{path}: EXPECT, EXPECT_FILE and EXPECT_SEQ exclude each other")
    if test.build_fail_regex is None and not (any(expectations) or test.expect_regex or
                                              test.expect_not_regex or test.expect_stderr_regex or
                                              test.flamegraph):
        raise TestFileError(f"{path}: checks nothing (no EXPECT*, FLAMEGRAPH or BUILD_FAIL_REGEX)")
    return test


def discover(root):
    """Every *.test under root, sorted by id."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".test"):
                out.append(os.path.join(d, f))
    return out
