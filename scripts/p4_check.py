#!/usr/bin/env python3
"""Pass 4 over every script xtap accepts at pass 2: C errors and warnings.

    python3 scripts/p4_check.py [--semok] [--corpus] [--testsuite DIR [--dirs a,b]]
        [--public DIR] [-r RELEASE] [-j N] [--xtap PATH] [--json FILE] [-v]

A script that pass 2 accepts but that the C compiler refuses, or warns
about, at pass 4 is a translator bug (issues 23 and 26). Each script runs as
`xtap -r RELEASE -p4 -k OPTIONS FILE ARGS` in its own directory; the kept
build directory's log (the direct path's `build.log`, else the Kbuild
output xtap prints on failure) gives the compiler's messages. A script that
fails at -p4 is tried at -p2: if pass 2 refuses it too, it is not counted
(xtap rejects it with a diagnostic, which is not this check's business).

Sources (any number; none given means --semok):
  --semok          xtap's own tests/lang/semok (`# XTAP-ARGS`, `# XTAP-GURU`)
  --corpus         the systemtap-doc examples, with their .meta options
                   (tests/corpus/corpus.py)
  --testsuite DIR  SystemTap's testsuite/ (reference data, never copied):
                   the folders of --dirs, options from each `#!` line as
                   scripts/stap_testsuite.py derives them
  --public DIR     every .stp under DIR, options from its `#!` line

Prints the failures grouped by the first compiler message (quoted names
blanked), then `p4-check: N passed, N failed` (scripts built without a
message; scripts with an error or warning). Exit status 1 on any failure.
Python 3 standard library only.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "corpus"))
import corpus  # noqa: E402
import run_corpus  # noqa: E402
import stap_testsuite  # noqa: E402

DEFAULT_DIRS = stap_testsuite.DEFAULT_DIRS + ",semok"
# Options that write files or name the module: the check keeps modules in
# xtap's cache only, and never writes beside the scripts.
DROPPED_VALUE_OPTIONS = {"-m", "-o"}
# A compiler or modpost message in a build log.
MESSAGE = re.compile(r"^(?:(\S+?):(\d+):(?:\d+:)? )?(error|warning|fatal error): (.*)$")
MODPOST = re.compile(r"^(?:ERROR|WARNING): modpost: (.*)$")


class Job:
    """One script with the options and arguments it runs with."""

    def __init__(self, name, path, options, args=()):
        self.name, self.path = name, path
        self.options, self.args = clean_options(options), list(args)


def clean_options(options):
    out, it = [], iter(options)
    for w in it:
        if w in DROPPED_VALUE_OPTIONS:
            next(it, None)
        elif not any(w.startswith(o) and len(w) > 2 for o in DROPPED_VALUE_OPTIONS):
            out.append(w)
    return out


def semok_jobs():
    root = os.path.join(REPO, "tests", "lang", "semok")
    for name in sorted(os.listdir(root)):
        if not name.endswith(".stp"):
            continue
        path = os.path.join(root, name)
        options, args = [], []
        with open(path, errors="replace") as f:
            for line in f:
                if not line.startswith("#"):
                    break
                if line.startswith("# XTAP-GURU"):
                    options.append("-g")
                elif line.startswith("# XTAP-ARGS:"):
                    args = line.split(":", 1)[1].split()
        yield Job("semok/" + name, path, options, args)


def corpus_jobs():
    for e in corpus.discover():
        yield Job("corpus/" + e.rel, e.path, e.options, e.args)


def shebang_jobs(root, dirs, prefix):
    for path in stap_testsuite.scripts(root, dirs):
        options = stap_testsuite.options(path)
        if options is not None:
            yield Job(prefix + os.path.relpath(path, root), path, options)


def xtap_run(xtap, release, job, passes, timeout):
    cmd = [xtap, "-r", release, f"-p{passes}"] + (["-k"] if passes == 4 else [])
    cmd += job.options + [job.path] + job.args
    try:
        p = subprocess.run(cmd, cwd=os.path.dirname(job.path), capture_output=True, text=True,
                           errors="replace", timeout=timeout, stdin=subprocess.DEVNULL)
        return p.returncode, p.stderr, cmd
    except subprocess.TimeoutExpired:
        return "timeout", "", cmd


def kept_dir(stderr):
    m = re.search(r"^xtap: kept build directory (\S+)$", stderr, re.M)
    if m:
        return m.group(1)
    m = re.search(r"\(build dir (\S+?)\)", stderr)
    return m.group(1) if m else None


def compiler_messages(text):
    """(kind, message, where) of each compiler or modpost message, in order."""
    out = []
    for line in text.splitlines():
        m = MESSAGE.match(line.strip())
        if m:
            where = f"{os.path.basename(m.group(1))}:{m.group(2)}" if m.group(1) else ""
            out.append((m.group(3).replace("fatal ", ""), m.group(4), where))
            continue
        m = MODPOST.match(line.strip())
        if m:
            out.append(("error" if line.startswith("ERROR") else "warning", m.group(1), "modpost"))
    return out


def check(xtap, release, job, timeout):
    """The job's outcome: status built/warned/failed/rejected and the messages."""
    rc, err, cmd = xtap_run(xtap, release, job, 4, timeout)
    d = kept_dir(err)
    log = err
    if d and os.path.isdir(d):
        build_log = os.path.join(d, "build.log")
        if os.path.exists(build_log):
            with open(build_log, errors="replace") as f:
                log = f.read() + "\n" + err
        shutil.rmtree(d, ignore_errors=True)
    messages = compiler_messages(log)
    result = {"name": job.name, "command": " ".join(cmd), "messages": messages}
    if rc == 0:
        result["status"] = "warned" if messages else "built"
        return result
    if rc != "timeout" and not messages:
        rc2, err2, _ = xtap_run(xtap, release, job, 2, timeout)
        if rc2 != 0:
            result["status"] = "rejected"
            result["error"] = next((l for l in err2.splitlines() if "error" in l), "")
            return result
    result["status"] = "failed"
    if not messages:
        tail = [l for l in err.splitlines() if l.strip()][-3:]
        result["messages"] = [("error", "xtap -p4: " + " | ".join(tail) if rc != "timeout"
                               else "xtap -p4 timed out", "")]
    return result


def cause(message):
    """A message with its quoted names and numbers blanked, for grouping."""
    text = re.sub(r"[‘'`\"][^’'`\"]*[’'`\"]", "‘…’", message)
    return re.sub(r"\b\d+\b", "N", text)


def report(results, verbose):
    failed = [r for r in results if r["status"] in ("failed", "warned")]
    groups = collections.defaultdict(list)
    for r in failed:
        kind, message, _where = r["messages"][0]
        groups[(kind, cause(message))].append(r)
    for (kind, message), rs in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
        print(f"{len(rs):4d}  {kind}: {message}")
        for r in sorted(rs, key=lambda r: r["name"]):
            kind0, first, where = r["messages"][0]
            print(f"        {r['name']}" + (f"  [{where}: {first}]" if verbose else ""))
            if verbose:
                print(f"          {r['command']}")
    counts = collections.Counter(r["status"] for r in results)
    print(f"scripts: {len(results)}; refused at -p2: {counts['rejected']}; "
          f"built at -p4: {counts['built'] + counts['warned'] + counts['failed']} "
          f"(clean {counts['built']}, C warnings {counts['warned']}, "
          f"failed {counts['failed']})")
    print(f"p4-check: {counts['built']} passed, {counts['failed'] + counts['warned']} failed")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xtap", default=os.path.join(REPO, "build", "cli", "xtap"))
    ap.add_argument("-r", "--release", default="6.1.0-56-cloud-amd64")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--semok", action="store_true")
    ap.add_argument("--corpus", action="store_true")
    ap.add_argument("--testsuite")
    ap.add_argument("--dirs", default=DEFAULT_DIRS)
    ap.add_argument("--public")
    ap.add_argument("--json", help="write every script's outcome to this file")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("filters", nargs="*", help="only scripts whose name contains one of these")
    a = ap.parse_args()

    jobs = []
    if a.semok or not (a.corpus or a.testsuite or a.public):
        jobs += semok_jobs()
    if a.corpus:
        jobs += corpus_jobs()
    if a.testsuite:
        jobs += shebang_jobs(os.path.abspath(a.testsuite), a.dirs.split(","), "testsuite/")
    if a.public:
        jobs += shebang_jobs(os.path.abspath(a.public), [""], "public/")
    if a.filters:
        jobs = [j for j in jobs if any(f in j.name for f in a.filters)]
    release = run_corpus.pick_release(a.release)
    if not os.path.exists(f"/lib/modules/{release}/build"):
        print(f"no headers for {release} (/lib/modules/{release}/build): nothing built")
        print("p4-check: 0 passed, 0 failed")
        return 0
    xtap = os.path.abspath(a.xtap)
    start = time.monotonic()
    done = []

    def one(job):
        r = check(xtap, release, job, a.timeout)
        done.append(r)
        if a.verbose or r["status"] in ("failed", "warned"):
            print(f"[{len(done)}/{len(jobs)}] {r['status']} {r['name']}", file=sys.stderr,
                  flush=True)
        return r

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(one, jobs))
    print(f"{len(jobs)} scripts through -p4 for {release} in "
          f"{time.monotonic() - start:.0f} s, {a.jobs} at a time")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return report(results, a.verbose)


if __name__ == "__main__":
    sys.exit(main())
