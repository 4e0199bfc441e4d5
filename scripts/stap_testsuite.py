#!/usr/bin/env python3
"""Pass 2 over SystemTap's own testsuite: what stap accepts, what xtap accepts.

    python3 scripts/stap_testsuite.py --testsuite DIR [--xtap build/cli/xtap]
        [--stap-results stap.json] [--run-stap] [-r RELEASE] [-j N]
        [--dirs buildok,systemtap.base,...] [--failures]

DIR is the `testsuite/` folder of a SystemTap source tree (not part of
xtap: fetch one, e.g. the sailfishos-mirror/systemtap snapshot). Every
`.stp` under the chosen folders that is a script (not a shell wrapper) runs
as `TOOL -r RELEASE -p2 OPTIONS FILE` in its own directory, OPTIONS being
those of its `#!` line without -p, -v, -w and -W. stap's verdicts take a
while (a second or two a script): --run-stap computes them and saves them
with --stap-results FILE, which later runs read instead.

Prints, per folder and in all, how many of the scripts stap accepts xtap
accepts too, then the error codes of the rest (--failures: each script
with its first error). The figures are recorded in docs/compat-testsuite.md.
Python 3 standard library only.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

DEFAULT_DIRS = ("buildok,systemtap.base,systemtap.maps,systemtap.printf,systemtap.string,"
                "systemtap.context,systemtap.syscall,systemtap.stress,systemtap.clone,"
                "systemtap.exelib,transok,runok,semlib,systemtap.apps,systemtap.speculate,"
                "systemtap.samples,systemtap.analysis")


def scripts(root, dirs):
    for d in dirs:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for name in sorted(names):
                if name.endswith(".stp"):
                    yield os.path.join(dirpath, name)


def options(path):
    """The #! line's options for pass 2; None for a shell wrapper."""
    with open(path, errors="replace") as f:
        first = f.readline()
    if not first.startswith("#!"):
        return []
    try:
        words = shlex.split(first[2:])
    except ValueError:
        words = first[2:].split()
    if not words or not words[0].endswith("stap"):
        return None
    out, it = [], iter(words[1:])
    for w in it:
        if w == "-p":
            next(it, None)
            continue
        if re.fullmatch(r"-[a-zA-Z]*p\d[a-zA-Z]*", w):  # -p4, -gp4, -p4g
            w = re.sub(r"p\d", "", w)
            if w == "-":
                continue
        if w in ("-v", "-vv", "-w", "-W"):
            continue
        out.append(w)
    return out


def run(tool, release, path):
    opts = options(path)
    if opts is None:
        return None
    cmd = [tool, "-r", release, "-p2"] + opts + [path]
    try:
        p = subprocess.run(cmd, cwd=os.path.dirname(path), capture_output=True, text=True,
                           errors="replace", timeout=120)
    except subprocess.TimeoutExpired:
        return {"rc": "timeout", "error": ""}
    errors = [l for l in p.stderr.splitlines() if "error" in l.lower()]
    return {"rc": p.returncode, "error": errors[0] if errors else ""}


def run_all(tool, release, files, jobs):
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        return dict(zip(files, pool.map(lambda f: run(tool, release, f), files)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--testsuite", required=True)
    ap.add_argument("--xtap", default=os.path.join(os.path.dirname(__file__), "..", "build/cli/xtap"))
    ap.add_argument("--stap-results")
    ap.add_argument("--run-stap", action="store_true")
    ap.add_argument("-r", "--release", default="6.1.0-56-cloud-amd64")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--dirs", default=DEFAULT_DIRS)
    ap.add_argument("--failures", action="store_true")
    a = ap.parse_args()

    root = os.path.abspath(a.testsuite)
    files = list(scripts(root, a.dirs.split(",")))
    rel = lambda f: os.path.relpath(f, root)
    if a.run_stap or not a.stap_results or not os.path.exists(a.stap_results):
        stap = {rel(f): r for f, r in run_all("stap", a.release, files, a.jobs).items()}
        if a.stap_results:
            with open(a.stap_results, "w") as out:
                json.dump(stap, out, indent=0)
    else:
        with open(a.stap_results) as f:
            stap = json.load(f)
    xtap = {rel(f): r for f, r in run_all(os.path.abspath(a.xtap), a.release, files, a.jobs).items()}

    accepted = sorted(k for k, v in stap.items() if v and v["rc"] == 0 and k in xtap)
    per_dir = collections.defaultdict(lambda: [0, 0])
    codes = collections.Counter()
    refused = []
    for k in accepted:
        ok = xtap[k] is not None and xtap[k]["rc"] == 0
        per_dir[k.split("/")[0]][0] += 1
        per_dir[k.split("/")[0]][1] += ok
        if not ok:
            refused.append(k)
            m = re.search(r"\[(XTP\d+)\]", (xtap[k] or {}).get("error", ""))
            codes[m.group(1) if m else str((xtap[k] or {}).get("rc"))] += 1
    for d, (n, ok) in sorted(per_dir.items()):
        print(f"  {d}: {ok} of {n}")
    both = len(accepted) - len(refused)
    share = 100.0 * both / len(accepted) if accepted else 0.0
    print(f"stap accepts {len(accepted)}; xtap accepts {both} of them ({share:.1f}%)")
    print("refused by code: " + ", ".join(f"{c} {n}" for c, n in codes.most_common()))
    if a.failures:
        for k in refused:
            print(f"  {k}: {(xtap[k] or {}).get('error', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
