#!/usr/bin/env python3
"""Check xtap against the documented tapset reference at -p2.

    python3 tests/tapset_reference/run_reference.py [--xtap build/cli/xtap]
        [-r RELEASE] [-j N] [-v] [--write-not-yet] [FILTER...]
    python3 tests/tapset_reference/run_reference.py --stap-baseline [-j N] [FILTER...]

Every function overload and probe alias of systemtap-doc's man pages
(reference.py) is elaborated by `xtap -p2 -r RELEASE` in a script of its own
(`probe begin { printf("%d\\n", f(0, "")) }`, `probe ALIAS { }`). Three checked-in lists:

- stap-p2-6.1.txt: what stap 4.8 does with the same script on the same
  kernel (`--stap-baseline` writes it; not in CI: it needs systemtap and the
  kernel's -dbg package, as tests/corpus/stap_baseline.py);
- exceptions.txt: items xtap does not resolve, each with its reason; an
  exception is valid only where stap 4.8 rejects the item too;
- not-yet-implemented.txt: items xtap does not resolve yet (tolerated and
  reported). The list only shrinks: a listed item that resolves fails the
  run until it is removed.

Any other item that does not resolve is a regression; a crash or a hang of
xtap fails whatever the lists say. Ends with `tapset-reference: N passed,
N failed` (items that resolve; regressions and stale list entries). Without
systemtap-doc it says so and exits 0.
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "corpus"))
import reference  # noqa: E402

STAP_LIST = os.path.join(HERE, "stap-p2-6.1.txt")
EXCEPTIONS = os.path.join(HERE, "exceptions.txt")
NOT_YET = os.path.join(HERE, "not-yet-implemented.txt")
DEFAULT_RELEASE = "6.1.0-56-cloud-amd64"


def pick_release(wanted):
    if os.path.exists(f"/lib/modules/{wanted}/build"):
        return wanted
    found = sorted(r for r in os.listdir("/lib/modules") if r.startswith("6.1.")
                   and r.endswith("-cloud-amd64")
                   and os.path.exists(f"/lib/modules/{r}/build")) \
        if os.path.isdir("/lib/modules") else []
    return found[-1] if found else wanted


def first_error(stderr):
    for line in stderr.splitlines():
        s = line.strip()
        if "error" in s.lower() and not s.startswith("source:"):
            return s
    return next((l.strip() for l in stderr.splitlines() if l.strip()), "(no message)")


def run_item(item, cmd_prefix, timeout, env=None):
    """(status, message): status is pass, fail, crash or hang."""
    cmd = cmd_prefix + item.options() + ["-e", item.script()]
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, errors="replace",
                           timeout=timeout, env=env or dict(os.environ, LC_ALL="C"))
    except subprocess.TimeoutExpired:
        return "hang", f"no result after {timeout} s"
    if p.returncode < 0:
        return "crash", f"signal {-p.returncode}"
    if p.returncode == 0:
        return "pass", ""
    return "fail", first_error(p.stderr)


def run_all(items, cmd_prefix, jobs, timeout, env=None):
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        return dict(zip((i.id for i in items),
                        pool.map(lambda i: run_item(i, cmd_prefix, timeout, env), items)))


def select(items, filters):
    if not filters:
        return items
    return [i for i in items if any(f in i.id for f in filters)]


def stap_baseline(items, opts):
    import stap_baseline as sb  # tests/corpus: the -dbg build tree, stap's cache
    release = pick_release(opts.release)
    tree = sb.kernel_tree(release, f"/tmp/xtap-stap-tree-{release}")
    env = dict(os.environ, LC_ALL="C",
               SYSTEMTAP_DIR=f"/tmp/xtap-stap-home-{release}")
    os.makedirs(env["SYSTEMTAP_DIR"], exist_ok=True)
    if any(i.kind == "probe" for i in items):
        sb.warm_up("stap", tree, env)
    results = run_all(items, ["stap", "-p2", "-r", tree], opts.jobs, opts.timeout, env)
    old = reference.read_list(STAP_LIST)
    for ident, (status, msg) in results.items():
        old[ident] = "PASS" if status == "pass" else f"FAIL {msg}"
    with open(STAP_LIST, "w") as f:
        f.write(f"# stap 4.8 -p2 -r TREE on {release} (TREE: tests/corpus/stap_baseline.py's "
                "build tree with the -dbg package's System.map and vmlinux), each item's script "
                "as run_reference.py writes it; written by run_reference.py --stap-baseline\n")
        for ident in sorted(old):
            f.write(f"{ident} {old[ident]}\n")
    passed = sum(1 for v in old.values() if v == "PASS")
    print(f"stap baseline: {passed} of {len(old)} items pass; wrote {STAP_LIST}")
    return 0


def write_not_yet(results, exceptions, items):
    kinds = {i.id: i.kind for i in items}
    missing = [i for i, (s, _) in results.items() if s != "pass" and i not in exceptions]
    groups = {kind: sorted(i for i in missing if kinds[i] == kind) for kind in ("function", "probe")}
    with open(NOT_YET, "w") as f:
        f.write("# NOT YET IMPLEMENTED: documented functions and probe aliases xtap does not\n"
                "# resolve yet at -p2 on 6.1 (tests/tapset_reference/run_reference.py\n"
                "# tolerates them and reports them). The list only shrinks: an item here that\n"
                "# resolves fails the run until it is removed; any item not here (and not in\n"
                "# exceptions.txt) that stops resolving fails the run.\n"
                "# Each line: the item, then the error xtap gave when the list was written.\n\n")
        f.write("# ---- functions\n")
        for ident in groups["function"]:
            f.write(f"{ident} {results[ident][1]}\n")
        f.write("\n# ---- probe aliases (the missing alias families are another engineer's work)\n")
        for ident in groups["probe"]:
            f.write(f"{ident} {results[ident][1]}\n")
    print(f"wrote {len(missing)} items to {NOT_YET}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xtap", default=os.path.join(REPO, "build", "cli", "xtap"))
    ap.add_argument("-r", "--release", default=DEFAULT_RELEASE)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--stap-baseline", action="store_true")
    ap.add_argument("--write-not-yet", action="store_true",
                    help="rewrite not-yet-implemented.txt from this run")
    ap.add_argument("filters", nargs="*")
    opts = ap.parse_args()

    if not os.path.isdir(reference.MAN3) or not any(
            e.startswith("function::") for e in os.listdir(reference.MAN3)):
        print("tapset-reference: systemtap-doc's man pages are not installed; skipped")
        print("tapset-reference: 0 passed, 0 failed")
        return 0
    items, unusable = reference.all_items()
    items = select(items, opts.filters)
    if opts.stap_baseline:
        return stap_baseline(items, opts)

    release = pick_release(opts.release)
    results = run_all(items, [opts.xtap, "-p2", "-r", release], opts.jobs, opts.timeout)
    stap = reference.read_list(STAP_LIST)
    exceptions = reference.read_list(EXCEPTIONS)
    not_yet = reference.read_list(NOT_YET)
    if opts.write_not_yet:
        write_not_yet(results, exceptions, items)
        not_yet = reference.read_list(NOT_YET)

    problems, tolerated = [], []
    for item in items:
        status, msg = results[item.id]
        if opts.verbose:
            print(f"{status.upper():5} {item.id} {msg}")
        if status in ("crash", "hang"):
            problems.append(f"{item.id}: xtap {status}: {msg}")
        elif status == "pass":
            if item.id in not_yet:
                problems.append(f"{item.id}: resolves now; remove it from not-yet-implemented.txt")
            if item.id in exceptions:
                problems.append(f"{item.id}: resolves now; remove it from exceptions.txt")
        elif item.id in exceptions:
            if stap.get(item.id, "").startswith("PASS"):
                problems.append(f"{item.id}: listed as an exception, but stap 4.8 resolves it")
        elif item.id in not_yet:
            tolerated.append((item, msg))
        else:
            problems.append(f"{item.id}: does not resolve: {msg}")

    def count(kind, pred):
        return sum(1 for i in items if i.kind == kind and pred(i))

    for kind in ("function", "probe"):
        total = count(kind, lambda i: True)
        if not total:
            continue
        ok = count(kind, lambda i: results[i.id][0] == "pass")
        stap_ok = count(kind, lambda i: stap.get(i.id, "").startswith("PASS"))
        known = count(kind, lambda i: i.id in stap)
        names = "function overloads" if kind == "function" else "probe aliases"
        line = f"{names}: xtap resolves {ok} of {total}"
        if known:
            line += f"; stap 4.8 {stap_ok} of the {known} it was run on"
        print(line)
    if tolerated:
        print(f"not yet implemented ({len(tolerated)}, tolerated): "
              + " ".join(i.id.split("::", 1)[1] for i, _ in tolerated))
    if unusable:
        print(f"pages without a synopsis (not checked): {' '.join(unusable)}")
    for p in problems:
        print(f"FAIL {p}")
    passed = sum(1 for s, _ in results.values() if s == "pass")
    print(f"tapset-reference: {passed} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
