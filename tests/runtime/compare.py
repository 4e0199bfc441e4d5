"""Checks of a runtime test's results against its expectations."""

import difflib
import os
import re

MAX_DIFF_LINES = 40


def _diff(expected, actual):
    lines = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(),
                                      "expected", "actual", lineterm="", n=2))
    if len(lines) > MAX_DIFF_LINES:
        lines = lines[:MAX_DIFF_LINES] + [f"... ({len(lines) - MAX_DIFF_LINES} more diff lines)"]
    return "\n".join(lines)


def check_seq(first, last, stdout):
    """Empty if stdout is exactly the integers first..last, one a line."""
    lines = stdout.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    else:
        return "output does not end with a newline" if stdout else "no output"
    want = last - first + 1
    for i, line in enumerate(lines):
        if i >= want:
            return f"{len(lines)} lines, expected {want}: extra line {i + 1}: {line[:80]!r}"
        if line != str(first + i):
            return (f"line {i + 1} is {line[:80]!r}, expected '{first + i}' "
                    f"({len(lines)} lines received, expected {want})")
    if len(lines) < want:
        return f"only {len(lines)} of {want} lines (last: {lines[-1][:80]!r})" if lines else "no output"
    return ""


def check_output(test, out, err, expect_file_text=None):
    """Reasons the stdout/stderr of a run do not meet the test's expectations."""
    reasons = []
    if test.expect_lines is not None:
        expected = "".join(line + "\n" for line in test.expect_lines)
        if out != expected:
            reasons.append("stdout differs:\n" + _diff(expected, out))
    if expect_file_text is not None and out != expect_file_text:
        reasons.append("stdout differs from EXPECT_FILE:\n" + _diff(expect_file_text, out))
    if test.expect_seq is not None:
        why = check_seq(test.expect_seq[0], test.expect_seq[1], out)
        if why:
            reasons.append("EXPECT_SEQ: " + why)
    missed = [r for r in test.expect_regex if not re.search(r, out, re.MULTILINE)]
    for r in missed:
        reasons.append(f"stdout does not match EXPECT_REGEX {r!r}")
    if missed:  # what was there instead: a rare failure is seen once
        lines = out.splitlines()
        shown = "\n".join("      | " + line for line in lines[:MAX_DIFF_LINES])
        more = f"\n      ... ({len(lines) - MAX_DIFF_LINES} more lines)" if len(lines) > MAX_DIFF_LINES else ""
        reasons.append(f"stdout was ({len(lines)} lines):\n{shown}{more}" if lines else "stdout was empty")
    for r in test.expect_not_regex:
        m = re.search(r, out, re.MULTILINE)
        if m:
            reasons.append(f"stdout matches EXPECT_NOT_REGEX {r!r}: {m.group(0)[:80]!r}")
    for r in test.expect_stderr_regex:
        if not re.search(r, err, re.MULTILINE):
            reasons.append(f"stderr does not match EXPECT_STDERR_REGEX {r!r}")
    for r in test.expect_stderr_not_regex:
        m = re.search(r, err, re.MULTILINE)
        if m:
            reasons.append(f"stderr matches EXPECT_STDERR_NOT_REGEX {r!r}: {m.group(0)[:80]!r}")
    return reasons


def check_run(test, status, out, err, expect_file_text=None):
    """Reasons a VM run fails the test; status is the job's .status dict."""
    if status.get("completed") != "1":
        return ["the job did not complete in the VM"]
    reasons = []
    if status.get("timed_out") == "1":
        reasons.append(f"timed out after {test.timeout_s} s (TIMEOUT)")
    else:
        code = int(status.get("exit", "-1"))
        if code != test.exit_status:
            reasons.append(f"exit status {code}, expected {test.exit_status}")
    if status.get("module_left_loaded") == "1" and status.get("timed_out") != "1":
        reasons.append("the module was still loaded after xtap-run ended")
    return reasons + check_output(test, out, err, expect_file_text)


def check_flamegraph(test, xtap, out, work):
    """FLAMEGRAPH: the run's stdout folded and drawn by `xtap --from-stacks`
    on the host; reasons the folded stacks' hottest leaf frame does not match
    the regex, or the SVG is not well-formed XML with that frame in it."""
    import subprocess
    import xml.etree.ElementTree as ET
    base = os.path.join(work, test.job_name)
    with open(base + ".stacks.txt", "w", encoding="utf-8") as f:
        f.write(out)
    folded, svg = base + ".folded", base + ".svg"
    p = subprocess.run([xtap, "--from-stacks", base + ".stacks.txt", "--folded", folded, "--flamegraph", svg],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    if p.returncode != 0:
        return [f"xtap --from-stacks exited {p.returncode}: {p.stdout.decode(errors='replace')[:300]}"]
    leaves = {}
    with open(folded, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            leaf = stack.rsplit(";", 1)[-1]
            leaves[leaf] = leaves.get(leaf, 0) + int(count)
    if not leaves:
        return ["FLAMEGRAPH: no stacks in the output"]
    ranked = sorted(leaves.items(), key=lambda kv: (-kv[1], kv[0]))
    reasons = []
    if not re.search(test.flamegraph, ranked[0][0]):
        reasons.append(f"FLAMEGRAPH: the hottest leaf is {ranked[0][0]!r}, not {test.flamegraph!r} "
                       f"(top: {', '.join(f'{k} {v}' for k, v in ranked[:5])})")
    try:
        root = ET.parse(svg).getroot()
    except ET.ParseError as e:
        return reasons + [f"FLAMEGRAPH: {svg} is not well-formed XML: {e}"]
    ns = "{http://www.w3.org/2000/svg}"
    names = {g.get("data-n") for g in root.iter(ns + "g") if g.get("class") == "f"}
    if ranked[0][0] not in names:
        reasons.append(f"FLAMEGRAPH: {svg} has no frame {ranked[0][0]!r}")
    return reasons
