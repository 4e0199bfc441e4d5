#!/usr/bin/env python3
"""Run every systemtap-doc example through `xtap -p2` and compare.

    python3 tests/corpus/run_corpus.py [--xtap build/cli/xtap] [-r RELEASE]
        [-j N] [-v] [--update-expected] [--write-compat docs/compat.md]
        [FILTER...]

Each example runs as `xtap -p2 -r RELEASE OPTIONS SCRIPT ARGS` in its own
directory, with the options and arguments its .meta gives (corpus.py).
Compared with two checked-in lists:

- stap-p2-6.1.txt: what stap 4.8 does with the same command (written by
  stap_baseline.py); the headline is the share of stap's set xtap passes;
- xtap-p2-expected.txt: the examples xtap must pass. A listed example that
  fails is a regression (exit status 1); an example of stap's set that passes
  but is not listed is printed as newly passing (add it: --update-expected
  does), so the list only grows. Examples xtap accepts and stap rejects are
  printed for review, never listed.

A crash (a signal) or a hang (--timeout) of xtap is printed in its own
section whether or not the example is listed.

Ends with `corpus: N passed, N failed`: the listed examples that pass, and
the regressions. Without systemtap-doc it says so and exits 0.
"""

import argparse
import collections
import concurrent.futures
import datetime
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import corpus  # noqa: E402

STAP_LIST = os.path.join(HERE, "stap-p2-6.1.txt")
EXPECTED_LIST = os.path.join(HERE, "xtap-p2-expected.txt")
VM_LIST = os.path.join(HERE, "xtap-vm-expected.txt")  # run_corpus_vm.py's list
DEFAULT_RELEASE = "6.1.0-56-cloud-amd64"

DIAGNOSTIC = re.compile(r"^(?:(?P<loc>\S+?:\d+):\d+: )?error\[(?P<code>XTP\d+)\]: (?P<msg>.*)$")

# One error: its code (or "cli", "crash", "hang"), message, where
# ("file:line" or ""), and the source line the diagnostic quotes.
Error = collections.namedtuple("Error", "code message where source")


class Result:
    def __init__(self, example, status, errors, cmd, stderr):
        self.example = example
        self.status = status    # "pass", "fail", "crash", "hang"
        self.errors = errors    # [Error] in order
        self.cmd = cmd
        self.stderr = stderr

    @property
    def passed(self):
        return self.status == "pass"

    def first_error(self):
        """The first error as `CODE message` (or the first stderr line)."""
        if not self.errors:
            return "(no message)"
        e = self.errors[0]
        return f"{e.code}: {e.message}" if e.code in ("crash", "hang") else f"{e.code} {e.message}"

    def first_error_in_context(self):
        """first_error() and where: `... at f.stp:5: `source line``."""
        e = self.errors[0] if self.errors else None
        text = self.first_error()
        if e and e.where:
            text += f" at {e.where}"
            if e.source:
                text += f": `{e.source}`"
        return text


# ---------------------------------------------------------------- running

def pick_release(wanted):
    """WANTED if its headers are installed, else the newest installed 6.1
    cloud kernel (Debian moves the ABI number), else WANTED anyway."""
    if os.path.exists(f"/lib/modules/{wanted}/build"):
        return wanted
    found = sorted(r for r in os.listdir("/lib/modules") if r.startswith("6.1.")
                   and r.endswith("-cloud-amd64")
                   and os.path.exists(f"/lib/modules/{r}/build")) \
        if os.path.isdir("/lib/modules") else []
    return found[-1] if found else wanted


def parse_errors(stderr):
    errors = []
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        m = DIAGNOSTIC.match(line.strip())
        if m:
            source = lines[i + 1].strip() if i + 1 < len(lines) and m.group("loc") else ""
            errors.append(Error(m.group("code"), m.group("msg").strip(),
                                m.group("loc") or "", source))
    if not errors:
        # Not a diagnostic (an option parser's complaint, say): first line.
        first = next((l.strip() for l in lines if l.strip()), "")
        if first:
            errors.append(Error("cli", first, "", ""))
    return errors


def run_one(example, xtap, release, timeout):
    cmd = example.command(xtap, release)
    try:
        p = subprocess.run(cmd, cwd=example.directory, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, errors="replace", timeout=timeout,
                           env=dict(os.environ, LC_ALL="C"))
    except subprocess.TimeoutExpired:
        return Result(example, "hang", [Error("hang", f"no result after {timeout} s", "", "")],
                      cmd, "")
    if p.returncode < 0:
        # Killed by a signal: an abort (assertion), a segfault.
        sig = -p.returncode
        tail = next((l.strip() for l in reversed(p.stderr.splitlines()) if l.strip()), "")
        return Result(example, "crash",
                      [Error("crash", f"signal {sig}" + (f" ({tail})" if tail else ""), "", "")],
                      cmd, p.stderr)
    if p.returncode == 0:
        return Result(example, "pass", [], cmd, p.stderr)
    return Result(example, "fail", parse_errors(p.stderr), cmd, p.stderr)


def run_all(examples, xtap, release, jobs, timeout, verbose):
    results = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for r in pool.map(lambda e: run_one(e, xtap, release, timeout), examples):
            results[r.example.rel] = r
            if verbose:
                print(f"{'PASS' if r.passed else 'FAIL'} {r.example.rel}"
                      + ("" if r.passed else f": {r.first_error()}"))
    return results


# ---------------------------------------------------------------- lists

def read_stap_list(path):
    """({path: (passed, reason)}, header comment lines)."""
    entries, header = {}, []
    if not os.path.exists(path):
        return entries, header
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                header.append(line[1:].strip())
                continue
            if not line.strip():
                continue
            rel, status, *reason = line.rstrip("\n").split(" ", 2)
            entries[rel] = (status == "PASS", reason[0] if reason else "")
    return entries, header


def read_expected(path):
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {l.strip() for l in f if l.strip() and not l.startswith("#")}


def write_expected(path, names):
    header = []
    if os.path.exists(path):
        with open(path) as f:
            header = [l for l in f if l.startswith("#")]
    with open(path, "w") as f:
        f.writelines(header)
        f.writelines(n + "\n" for n in sorted(names))


# ---------------------------------------------------------------- causes

QUOTED = r"'[^']*'|\"[^\"]*\""


UNKNOWN_OPTION = re.compile(r"The following arguments? (?:was|were) not expected: (.*)")


def template(message):
    """The message with its detail blanked: the cause. The detail is the last
    quoted part (diagnostics put what was found last: "unknown probe point
    'X'", "expected ')', found identifier 'X'"); numbers are blanked too."""
    if UNKNOWN_OPTION.match(message):
        return "stap options xtap does not take: …"
    quoted = list(re.finditer(QUOTED, message))
    if quoted:
        m = quoted[-1]
        q = m.group(0)[0]
        message = message[:m.start()] + q + "…" + q + message[m.end():]
    return re.sub(r"(?<![\w'])\d+\b", "N", message)


def probe_family(point):
    """kernel.function("x").return -> kernel.function("…").return;
    syscall.open -> syscall.*; timer.ms(100) -> timer.ms(N)."""
    p = re.sub(r'\("[^"]*"\)', '("…")', point)
    p = re.sub(r"\(\d+\)", "(N)", p)
    p = re.sub(r"\(\$\d+\)|\(@\d+\)", "(N)", p)
    head = p.split(".", 1)[0]
    if head in ("kernel", "module", "process", "kprobe", "timer", "perf",
                "procfs", "begin", "end", "error", "never", "netfilter", "java",
                "python2", "python3", "hrtimer") or "(" in head:
        return p
    return head + ".*" if "." in p else p


def detail(code, message):
    """What template() blanked (a probe point as its family), or ''."""
    m = UNKNOWN_OPTION.match(message)
    if m:
        return m.group(1)
    quoted = re.findall(QUOTED, message)
    if not quoted:
        return ""
    last = quoted[-1][1:-1]
    return probe_family(last) if "probe point" in message else last


def cause(code, message):
    return f"{code} {template(message)}"


class Cause:
    """One row of a cause table: how many scripts, the details that tell
    them apart, and one source line that shows the construct."""

    def __init__(self, name):
        self.name = name
        self.scripts = 0
        self.details = collections.Counter()
        self.sample = ""

    def add(self, errors):
        self.scripts += 1
        for d in {detail(e.code, e.message) for e in errors}:
            if d:
                self.details[d] += 1
        if not self.sample:
            e = next((e for e in errors if e.source), None)
            if e:
                self.sample = f"{e.where}: {e.source}"


def cause_tables(results, names):
    """([Cause] by each script's first error, [Cause] by any of its errors),
    most scripts first."""
    first, anywhere = {}, {}
    for name in names:
        r = results[name]
        if r.passed:
            continue
        head = r.errors[0]
        c = cause(head.code, head.message)
        first.setdefault(c, Cause(c)).add([head])
        by_cause = collections.OrderedDict()
        for e in r.errors:
            by_cause.setdefault(cause(e.code, e.message), []).append(e)
        for c, errors in by_cause.items():
            anywhere.setdefault(c, Cause(c)).add(errors)

    def ordered(table):
        return sorted(table.values(), key=lambda row: (-row.scripts, row.name))
    return ordered(first), ordered(anywhere)


def format_details(details, limit=6):
    items = details.most_common()
    if not items:
        return ""
    shown = ", ".join(f"{d} {n}" for d, n in items[:limit])
    more = len(items) - limit
    return shown + (f", … {more} more" if more > 0 else "")


def print_cause_table(title, rows, limit):
    print(title)
    print(f"  {'scripts':>7}  cause")
    for row in rows[:limit]:
        print(f"  {row.scripts:>7}  {row.name}")
        d = format_details(row.details)
        if d:
            print(f"  {'':>7}    {d}")
        if row.sample:
            print(f"  {'':>7}    e.g. {shorten(row.sample, 100)}")
    if len(rows) > limit:
        print(f"  {'':>7}  … {len(rows) - limit} more causes")


def shorten(text, width):
    return text if len(text) <= width else text[:width - 1] + "…"


# ---------------------------------------------------------------- report

def md_escape(text):
    return text.replace("|", "\\|").replace("\n", " ")


def stap_cause(reason):
    """stap's reason for rejecting a script, with its details blanked: the
    probe point being resolved, and what went wrong."""
    where = re.search(r"while resolving probe point: identifier '([^']*)'", reason)
    last = reason.split(" … ")[-1]
    last = re.sub(r"\s*\((?:similar|alternatives)[^)]*\)+", "", last)
    last = re.sub(r"\[man [^]]*\]\s*", "", last)
    last = re.sub(r":? (?:identifier|operator) '[^']*' at \S+$", "", last)
    last = re.sub(r"\b(dieoffset|pc:?) 0x[0-9a-f]+", r"\1 …", last)
    last = re.sub(r"'[^']*'", "'…'", last)
    last = re.sub(r"\b\d+\b", "N", last)
    return (f"probe point {where.group(1)}(…): " if where else "") + last.strip()


def write_compat(path, examples, results, stap, stap_header, release, summary, first_rows):
    """docs/compat.md: how the stap set was found, the headline, the causes,
    and one row per example."""
    today = datetime.date.today().isoformat()
    in_vm = read_expected(VM_LIST)
    L = []
    L.append("# Compatibility with the SystemTap example corpus\n")
    L.append("Generated by `python3 tests/corpus/run_corpus.py --write-compat docs/compat.md`"
             f" on {today}; do not edit by hand. The corpus is Debian's `systemtap-doc`"
             " (the examples under `/usr/share/systemtap/examples/` and"
             " `/usr/share/doc/systemtap/examples/`); `docs/testing.md` describes the runner.\n")
    L.append("## Headline\n")
    L.extend(f"- {s}" for s in summary)
    L.append(f"- {len(in_vm)} examples run cleanly in one VM boot of the 6.1 kernel"
             " (`tests/corpus/xtap-vm-expected.txt`, kept by `tests/corpus/run_corpus_vm.py`;"
             " `docs/testing.md` says how each is run and judged)")
    L.append("")
    L.append("## By directory\n")
    L.append("| directory | examples | stap -p2 passes | xtap -p2 passes | of them in stap's set |")
    L.append("| --- | ---: | ---: | ---: | ---: |")
    groups = collections.OrderedDict()
    for e in examples:
        groups.setdefault(os.path.dirname(e.rel), []).append(e.rel)
    for d, names in groups.items():
        s_ok = [n for n in names if stap.get(n, (False, ""))[0]]
        x_ok = [n for n in names if results[n].passed]
        L.append(f"| `{d}` | {len(names)} | {len(s_ok)} | {len(x_ok)} "
                 f"| {sum(1 for n in x_ok if n in s_ok)} |")
    L.append("")
    L.append("## How each example is run\n")
    L.append("Both tools run `TOOL -p2 -r RELEASE OPTIONS SCRIPT ARGS` in the example's"
             " directory. OPTIONS and ARGS come from the example's `.meta` (its `test_check`"
             " stap command, which is the `-p4` check; the rules, including the few"
             " substitutions for shell pieces like `` `which stap` ``, are at the top of"
             " `tests/corpus/corpus.py`). An example without a `.meta` runs with no options"
             " or arguments.\n")
    L.append("## How stap's set was found\n")
    L.append("`python3 tests/corpus/stap_baseline.py` (not in CI) ran stap on every example"
             " and wrote `tests/corpus/stap-p2-6.1.txt`, whose header says:\n")
    L.extend(f"    {h}" for h in stap_header)
    L.append("")
    L.append("stap's set is this host's: `process(...)` probes need the program or library"
             " installed (and its debuginfo for context variables), and kernel functions,"
             " tracepoints and their variables must still exist in the 6.1 kernel. Why stap"
             " rejects the others (by its last error, which says what went wrong):\n")
    L.append("| examples | stap's error |")
    L.append("| ---: | --- |")
    rejected = collections.Counter()
    for e in examples:
        ok, reason = stap.get(e.rel, (None, ""))
        if ok is False:
            rejected[stap_cause(reason)] += 1
    for reason, n in sorted(rejected.items(), key=lambda kv: (-kv[1], kv[0])):
        L.append(f"| {n} | {md_escape(reason)} |")
    L.append("")
    L.append("## Why xtap rejects what stap accepts (first error of each script)\n")
    L.append("| scripts | cause | details | e.g. |")
    L.append("| ---: | --- | --- | --- |")
    for row in first_rows:
        sample = f"`{md_escape(shorten(row.sample, 80))}`" if row.sample else ""
        L.append(f"| {row.scripts} | {md_escape(row.name)} "
                 f"| {md_escape(format_details(row.details, 10))} | {sample} |")
    L.append("")
    L.append("## Every example\n")
    L.append("`stap -p2`: PASS, or FAIL with stap's first error. `xtap -p2`: PASS, or FAIL"
             " with xtap's first error (its diagnostic code and message). `xtap VM`: runs"
             " when the example is in `tests/corpus/xtap-vm-expected.txt` (it runs cleanly"
             " in the 6.1 VM in CI).\n")
    L.append("| example | options and arguments | stap -p2 | xtap -p2 | xtap VM |")
    L.append("| --- | --- | --- | --- | --- |")
    for e in examples:
        ok, reason = stap.get(e.rel, (None, "not measured"))
        stap_cell = "PASS" if ok else ("FAIL: " + reason if ok is False else reason)
        r = results[e.rel]
        xtap_cell = "PASS" if r.passed else "FAIL: " + r.first_error_in_context()
        args = shlex.join(e.options + e.args)
        L.append(f"| `{e.rel}` | {('`' + md_escape(args) + '`') if args else ''} "
                 f"| {md_escape(stap_cell)} | {md_escape(xtap_cell)} "
                 f"| {'runs' if e.rel in in_vm else ''} |")
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xtap", default=os.path.join(REPO, "build", "cli", "xtap"))
    ap.add_argument("-r", "--release", default=DEFAULT_RELEASE)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--stap-list", default=STAP_LIST, help="stap's results (default: %(default)s)")
    ap.add_argument("--expected", default=EXPECTED_LIST, help="the expected list (default: %(default)s)")
    ap.add_argument("--timeout", type=int, default=60, help="per script, seconds")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per example")
    ap.add_argument("--causes", type=int, default=15, help="rows of the cause tables")
    ap.add_argument("--update-expected", action="store_true",
                    help="add newly passing examples to xtap-p2-expected.txt")
    ap.add_argument("--write-compat", metavar="FILE", help="write docs/compat.md")
    ap.add_argument("filters", nargs="*", help="only examples whose path contains one")
    opts = ap.parse_args()

    examples = corpus.discover()
    if not examples:
        print("corpus: systemtap-doc is not installed (no "
              + " or ".join(corpus.ROOTS) + "): skipped")
        print("corpus: 0 passed, 0 failed")
        return 0
    if not os.access(opts.xtap, os.X_OK):
        print(f"corpus: no xtap at {opts.xtap} (build first)")
        print("corpus: 0 passed, 1 failed")
        return 1
    if opts.filters:
        examples = [e for e in examples if any(f in e.rel for f in opts.filters)]
    release = pick_release(opts.release)
    stap, stap_header = read_stap_list(opts.stap_list)
    expected = read_expected(opts.expected)

    results = run_all(examples, opts.xtap, release, opts.jobs, opts.timeout, opts.verbose)
    names = [e.rel for e in examples]
    stap_ok = [n for n in names if stap.get(n, (False, ""))[0]]
    xtap_ok = [n for n in names if results[n].passed]
    both = [n for n in stap_ok if results[n].passed]
    only_xtap = [n for n in xtap_ok if n not in stap_ok]
    regressions = [n for n in names if n in expected and not results[n].passed]
    still = [n for n in names if n in expected and results[n].passed]
    new = [n for n in both if n not in expected]
    broken = [n for n in names if results[n].status in ("crash", "hang")]
    unmeasured = [n for n in names if n not in stap]

    pct = 100.0 * len(both) / len(stap_ok) if stap_ok else 0.0
    goal = -(-95 * len(stap_ok) // 100)
    summary = [
        f"corpus: {len(names)} examples (systemtap-doc), xtap -p2 -r {release}",
        f"stap 4.8 accepts {len(stap_ok)} of {len(names)} at -p2 "
        f"(tests/corpus/stap-p2-6.1.txt)",
        f"xtap passes {len(both)} of the {len(stap_ok)} stap accepts ({pct:.1f}%; "
        f"the goal, 95%, is {goal})"
        + (f"; also {len(only_xtap)} that stap rejects" if only_xtap else ""),
    ]
    print()
    for s in summary:
        print(s)
    if unmeasured:
        shown = ", ".join(unmeasured[:5]) + (", …" if len(unmeasured) > 5 else "")
        print(f"{len(unmeasured)} examples are not in the stap list (rerun stap_baseline.py): {shown}")

    first_rows, any_rows = cause_tables(results, stap_ok)
    print()
    print_cause_table("top causes, by the first error of each script stap accepts:",
                      first_rows, opts.causes)
    print()
    print_cause_table("causes anywhere in those scripts' errors (fixing one may reveal the next):",
                      any_rows, opts.causes)

    if broken:
        print()
        print(f"xtap crashed or hung on {len(broken)} examples (a bug, whatever the script):")
        for n in broken:
            r = results[n]
            print(f"  {n}: {r.first_error()}")
            print(f"    cd {r.example.directory} && {shlex.join(r.cmd)}")
    if only_xtap:
        print()
        print(f"xtap accepts {len(only_xtap)} examples that stap rejects (not listed; "
              f"check that accepting them is right):")
        for n in only_xtap:
            print(f"  {n}: stap: {stap[n][1] if n in stap else 'not measured'}")
    if new:
        print()
        print(f"newly passing — add to tests/corpus/xtap-p2-expected.txt"
              f"{' (done: --update-expected)' if opts.update_expected else ' (or run with --update-expected)'}:")
        for n in new:
            print(f"  {n}")
        if opts.update_expected:
            write_expected(opts.expected, expected | set(new))
    if regressions:
        print()
        print(f"REGRESSIONS: {len(regressions)} listed examples fail:")
        for n in regressions:
            r = results[n]
            print(f"  {n}: {r.first_error()}")
            print(f"    cd {r.example.directory} && {shlex.join(r.cmd)}")
    if opts.write_compat:
        write_compat(opts.write_compat, examples, results, stap, stap_header, release,
                     summary, first_rows)
        print(f"\nwrote {opts.write_compat}")
    print(f"corpus: {len(still)} passed, {len(regressions)} failed")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
