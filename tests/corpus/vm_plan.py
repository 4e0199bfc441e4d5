"""How a systemtap-doc example runs in the VM: its plan, and its verdict.

Used by run_corpus_vm.py; tested without a VM by test_corpus_vm.py.
Python 3 standard library only.

An example's plan comes from its `.meta` `test_installcheck` command (the
`make installcheck` run of stap's own test suite), with the options split
between the build (`xtap -p4`) and the run (`xtap-run`):

- `-T N` goes to xtap-run, capped at MAX_RUN_S seconds (TCG is slow and the
  run shares one boot with every other example);
- `-c CMD` becomes the job's workload; it must be made of busybox applets,
  shell builtins or the runtime suite's workloads (tests/runtime/workloads),
  and `sleep N` is shortened to MAX_RUN_S;
- `-x PID` goes to xtap-run; `$$` (the meta's shell) is the guest's shell,
  PID 1;
- `-o FILE` is dropped; the rest are build options (`-I DIR` made absolute).

An example whose meta has no install check that runs it (none, or only
`stap -p4`) runs as `stap SCRIPT -T 1` would: the tutorial's scripts, the
security band-aids and the games, which run until stopped. Tapset files
(under a `tapset/` directory) are libraries, not scripts, and never run.

It cannot run in the guest when its command needs a program the guest lacks
(stap, strace, python, php, sudo ...), or a shell command substitution
the runner does not evaluate.
"""

import os
import re
import shlex

import corpus

MAX_RUN_S = 2            # cap of -T and of `sleep N` workloads
TIMEOUT_MARGIN_S = 20    # guest watchdog: the run time plus this
SELF_ENDING_TIMEOUT_S = 20  # scripts that end by exit() or a count of intervals
DEFAULT_RUN = ["-T", "1"]   # examples without an install check

# Shell words that are not programs.
SHELL_BUILTINS = {"true", "false", "echo", "test", "[", "exit", ":", "cd", "printf"}

# Output that must appear, for the examples whose output does not depend on
# the system (Python regexes, re.search, multiline).
EXPECTED_OUTPUT = {
    "systemtap/examples/general/helloworld.stp": [r"^hello world$"],
    "doc/systemtap/examples/tutorial/hello-world.stp": [r"^hello world$"],
    # The colour tables: a header, then one row per foreground and attribute.
    "systemtap/examples/general/ansi_colors.stp": [r"^fg,t \\ bg \|   40      41",
                                                   r"^   37,1   \|.* Bold "],
    "systemtap/examples/general/ansi_colors2.stp": [r"^fg,t \\ bg \|   40      41",
                                                    r"^   37,1   \|.* Colors "],
}


class Plan:
    """One example's build and run in the VM."""

    def __init__(self, example, source):
        self.example = example
        self.source = source        # "meta" (test_installcheck) or "default"
        self.build_options = []     # xtap -p4 options (besides -p, -r, -m)
        self.args = []              # script arguments
        self.runner_args = []       # xtap-run options
        self.command = ""           # workload (-c)
        self.timeout_s = SELF_ENDING_TIMEOUT_S
        self.expect_regex = list(EXPECTED_OUTPUT.get(example.rel, []))
        self.notes = []             # what was changed from the meta's command

    @property
    def short_name(self):
        """The example's name without the common prefix: io/iotop."""
        rel = self.example.rel
        for root in ("doc/systemtap/examples/", "systemtap/examples/"):
            if rel.startswith(root):
                rel = rel[len(root):]
                break
        return rel[:-len(".stp")] if rel.endswith(".stp") else rel

    @property
    def job_name(self):
        return re.sub(r"[^A-Za-z0-9_.-]", "_", self.short_name.replace("/", "."))

    @property
    def module_name(self):
        return ("c_" + re.sub(r"[^A-Za-z0-9_]", "_", self.short_name))[:55]


def install_check_line(example):
    """The meta's test_installcheck line if it runs the script (not only -p4)."""
    if not example.meta:
        return None
    for key, value in corpus.read_meta(example.meta):
        if key != "test_installcheck":
            continue
        words = corpus.stap_words(shlex_words(value))
        if words and os.path.basename(example.path) in words \
                and not any(re.fullmatch(r"-\w*p[1-4]", w) for w in words):
            return value
    return None


def shlex_words(line):
    try:
        return shlex.split(line)
    except ValueError:
        return []


def program_words(command):
    """The program names of a shell command line: the first word of each
    simple command (after `|`, `||`, `&&`, `;`)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return None
    programs, expect_program = [], True
    for w in words:
        if w in ("|", "||", "&&", ";", "&"):
            expect_program = True
        elif expect_program and not re.fullmatch(r"\d*[<>&]+.*|\w+=.*", w):
            programs.append(w)
            expect_program = False
    return programs


def missing_programs(command, guest_programs):
    programs = program_words(command)
    if programs is None:
        return ["(unparsable command)"]
    return [p for p in programs
            if p not in SHELL_BUILTINS and os.path.basename(p) not in guest_programs]


def shorten_sleep(command):
    m = re.fullmatch(r"\s*sleep\s+(\d+)\s*", command)
    if m and int(m.group(1)) > MAX_RUN_S:
        return f"sleep {MAX_RUN_S}"
    return command


# Examples that the emulated (TCG) guest cannot run in a batch's time.
TOO_SLOW_UNDER_TCG = {
    "systemtap/examples/profiling/functioncallcount.stp":
        "a kprobe on every function of mm/*.c: arming them under TCG outlasted the whole batch "
        "(2026-11-23), and the jobs after it never ran",
}


def plan(example, guest_programs):
    """(Plan, "") or (None, why the example cannot run in the guest)."""
    if "/tapset/" in example.rel:
        return None, "a tapset file (a library, not a script)"
    if example.rel in TOO_SLOW_UNDER_TCG:
        return None, TOO_SLOW_UNDER_TCG[example.rel]
    line = install_check_line(example)
    if line is None:
        p = Plan(example, "default")
        options, args = list(example.options), list(example.args)
        options += DEFAULT_RUN
        why = ("its .meta has no install check that runs it" if example.meta
               else "it has no .meta")
        p.notes.append(f"{why}: run as `stap SCRIPT {' '.join(DEFAULT_RUN)}`")
    else:
        if "`" in line:
            return None, "its install check uses a shell command substitution: " + line
        words = corpus.stap_words(shlex_words(re.sub(r"\$\$(?![A-Za-z_])", "1", line)))
        parsed = corpus.parse_stap_words(words or [], os.path.basename(example.path))
        if parsed is None:
            return None, "cannot parse its install check: " + line
        p = Plan(example, "meta")
        options, args = parsed
    i = 0
    run_s = None
    while i < len(options):
        o = options[i]
        value = options[i + 1] if i + 1 < len(options) else ""
        if o == "-T":
            try:
                run_s = int(value)
            except ValueError:
                return None, f"-T {value} is not a number"
            if run_s > MAX_RUN_S:
                p.notes.append(f"-T {run_s} capped at {MAX_RUN_S}")
                run_s = MAX_RUN_S
            p.runner_args += ["-T", str(run_s)]
            i += 2
        elif o == "-c":
            missing = missing_programs(value, guest_programs)
            if missing:
                return None, f"its workload needs {', '.join(missing)}, not in the guest: -c {value!r}"
            p.command = shorten_sleep(value)
            if p.command != value:
                p.notes.append(f"-c {value!r} shortened to {p.command!r}")
            i += 2
        elif o == "-x":
            p.runner_args += ["-x", value]
            i += 2
        elif o == "-I":
            p.build_options += ["-I", os.path.join(example.directory, value)]
            i += 2
        elif (len(o) == 2 and o[1] in corpus.VALUE_OPTS) or o in corpus.LONG_VALUE_OPTS:
            p.build_options += [o, value]
            i += 2
        else:
            p.build_options.append(o)
            i += 1
    p.args = args
    if run_s is not None or p.command:
        p.timeout_s = (run_s or MAX_RUN_S) + TIMEOUT_MARGIN_S
    return p, ""


# ---------------------------------------------------------------- verdicts

def judge(p, status, out, err, problems):
    """Reasons the run of plan P failed ([] when it ran cleanly). STATUS is
    the job's .status dict; PROBLEMS the kernel log problems of this job."""
    if status.get("completed") != "1":
        return ["the job did not complete in the VM (the batch ended first)"]
    reasons = []
    if status.get("timed_out") == "1":
        reasons.append(f"did not end within {p.timeout_s} s (killed)")
    else:
        code = status.get("exit", "?")
        if code != "0":
            first = next((l.strip() for l in err.splitlines() if l.strip()), "")
            reasons.append(f"xtap-run exit status {code}" + (f": {first}" if first else ""))
    if status.get("module_left_loaded") == "1":
        reasons.append("the module was still loaded after xtap-run ended")
    for r in p.expect_regex:
        if not re.search(r, out, re.MULTILINE):
            reasons.append(f"output does not match {r!r}")
    for text in problems:
        reasons.append(f"kernel log: {text}")
    return reasons


def problems_by_job(problems_text):
    """{job: [line]} from problems.txt ("JOB<TAB>LINE"; JOB "-" outside jobs)."""
    by_job = {}
    for line in problems_text.splitlines():
        job, _, text = line.partition("\t")
        by_job.setdefault(job, []).append(text)
    return by_job
