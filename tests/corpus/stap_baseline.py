#!/usr/bin/env python3
"""Measure which corpus examples SystemTap itself accepts at -p2.

Not part of CI: needs Debian's `systemtap` (4.8) and the target kernel's
`linux-image-RELEASE-dbg` (stap reads /usr/lib/debug/lib/modules/RELEASE/
vmlinux). Writes the list that run_corpus.py compares xtap against:

    python3 tests/corpus/stap_baseline.py [-r RELEASE] [-j 2] [--timeout 300] \
        [-o tests/corpus/stap-p2-6.1.txt] [FILTER...]

Each example runs as `stap -p2 -r TREE OPTIONS SCRIPT ARGS` in its own
directory, with the options and arguments its .meta gives (see corpus.py);
TREE is the kernel's build tree completed from the -dbg package
(kernel_tree()). One line per example: `PATH PASS` or `PATH FAIL first
error line`. A full run takes about 30 minutes on 2 loaded cores.
"""

import argparse
import concurrent.futures
import datetime
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402

ERROR_LINE = re.compile(r"^(semantic error|parse error|error|ERROR|WARNING: .*error)\b.*", re.M)


def first_error(stderr):
    """stap's first error line; when it only says where (a probe point being
    resolved), the last error line too, which says what went wrong."""
    lines = [re.sub(r"\s+", " ", m.group(0)).strip() for m in ERROR_LINE.finditer(stderr)]
    if not lines:
        return next((l.strip() for l in stderr.splitlines() if l.strip()), "(no message)")
    first = next((l for l in lines if "resolution failed in" not in l), lines[0])
    last = lines[-1]
    if last == first or "while resolving" not in first and "resolution failed" not in first:
        return first
    return f"{first} … {last}"


def kernel_tree(release, directory):
    """A build tree for stap -r: the headers (symlinked) plus what Debian
    ships only in linux-image-RELEASE-dbg: the real System.map (the one in
    /boot is a stub; without it stap warns "Kernel function symbol table
    missing" and kprobe.function wildcards match nothing), vmlinux, and the
    modules' debuginfo under kernel/; and source/, the common headers where
    stap finds the tracepoint headers. A build tree is where stap looks for
    all of them; -r RELEASE alone misses System.map."""
    debug = f"/usr/lib/debug/lib/modules/{release}"
    system_map = f"/usr/lib/debug/boot/System.map-{release}"
    headers = os.path.realpath(f"/lib/modules/{release}/build")
    source = os.path.realpath(f"/lib/modules/{release}/source")
    for need in (debug + "/vmlinux", system_map, headers + "/Makefile", source):
        if not os.path.exists(need):
            sys.exit(f"stap_baseline: missing {need} (install linux-headers-{release} "
                     f"and linux-image-{release}-dbg)")
    links = {name: os.path.join(headers, name) for name in os.listdir(headers)}
    links.update(vmlinux=debug + "/vmlinux", kernel=debug + "/kernel", source=source)
    os.makedirs(directory, exist_ok=True)
    for name, target in links.items():
        path = os.path.join(directory, name)
        if not os.path.lexists(path):
            os.symlink(target, path)
    if not os.path.exists(os.path.join(directory, "System.map")):
        shutil.copy(system_map, os.path.join(directory, "System.map"))
    return directory


def warm_up(stap, tree, env):
    """Build stap's tracepoint query modules once, without a time limit, before
    the timed runs: the first kernel.trace probe compiles a module per
    tracepoint header (10 minutes here under load), and a run killed midway
    leaves empty, failed entries in stap's cache that make later
    kernel.trace probes match nothing."""
    print("stap_baseline: warming stap's tracepoint cache (minutes, the first time)", flush=True)
    p = subprocess.run([stap, "-p2", "-r", tree, "-e",
                        'probe kernel.trace("sched_switch") { println(1) }'],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0:
        sys.exit("stap_baseline: kernel.trace(\"sched_switch\") fails; stap's tracepoint "
                 f"cache in {env['SYSTEMTAP_DIR']} is unusable (remove it):\n{p.stderr}")


def read_list(path):
    """{path: (passed, reason)} from a list this script wrote."""
    entries = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            rel, status, *reason = line.rstrip("\n").split(" ", 2)
            entries[rel] = (status == "PASS", reason[0] if reason else "")
    return entries


def run_one(example, stap, release, timeout, env):
    cmd = example.command(stap, release)
    try:
        p = subprocess.run(cmd, cwd=example.directory, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, errors="replace",
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return example, False, f"timeout after {timeout} s", cmd
    if p.returncode == 0:
        return example, True, "", cmd
    return example, False, first_error(p.stderr), cmd


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-r", "--release", default="6.1.0-56-cloud-amd64")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--stap", default="stap")
    ap.add_argument("--tree", help="the build tree to make for stap "
                    "(default /tmp/xtap-stap-tree-RELEASE; kept, so stap's caches stay valid)")
    ap.add_argument("--stap-dir", help="stap's SYSTEMTAP_DIR, its cache "
                    "(default /tmp/xtap-stap-home-RELEASE, apart from ~/.systemtap)")
    ap.add_argument("-o", "--output", default=os.path.join(here, "stap-p2-6.1.txt"))
    ap.add_argument("filters", nargs="*", help="only examples whose path contains one")
    opts = ap.parse_args()

    examples = corpus.discover()
    if not examples:
        sys.exit("stap_baseline: no examples (install systemtap-doc)")
    if opts.filters:
        examples = [e for e in examples if any(f in e.rel for f in opts.filters)]
    version = subprocess.run([opts.stap, "-V"], stderr=subprocess.STDOUT,
                             stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]
    tree = kernel_tree(opts.release, opts.tree or f"/tmp/xtap-stap-tree-{opts.release}")
    env = dict(os.environ, LC_ALL="C",
               SYSTEMTAP_DIR=opts.stap_dir or f"/tmp/xtap-stap-home-{opts.release}")
    os.makedirs(env["SYSTEMTAP_DIR"], exist_ok=True)
    warm_up(opts.stap, tree, env)

    results = {}
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        futures = [pool.submit(run_one, e, opts.stap, tree, opts.timeout, env)
                   for e in examples]
        for f in concurrent.futures.as_completed(futures):
            e, ok, reason, cmd = f.result()
            results[e.rel] = (ok, reason)
            print(f"{'PASS' if ok else 'FAIL'} {e.rel}" + (f": {reason}" if reason else ""),
                  flush=True)

    run_note = f"timeout {opts.timeout} s per script, {opts.jobs} at a time"
    reruns = []
    if opts.filters and os.path.exists(opts.output):
        # A partial run updates its examples in the existing list and notes
        # the rerun under the full run's header.
        for rel, entry in read_list(opts.output).items():
            results.setdefault(rel, entry)
        with open(opts.output) as f:
            header = [l[2:].rstrip("\n") for l in f if l.startswith("# ")]
        run_note = next((h for h in header if h.startswith("timeout ")), run_note)
        reruns = [h for h in header if h.startswith("rerun ")]
        reruns.append(f"rerun {datetime.date.today().isoformat()}: {' '.join(opts.filters)}, "
                      f"timeout {opts.timeout} s, {opts.jobs} at a time")
    passed = sum(ok for ok, _ in results.values())
    dbg_version = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", f"linux-image-{opts.release}-dbg"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
    with open(opts.output, "w") as out:
        out.write(f"# stap -p2 on the systemtap-doc examples: which ones SystemTap accepts.\n"
                  f"# Generated by tests/corpus/stap_baseline.py on "
                  f"{datetime.date.today().isoformat()}.\n"
                  f"# stap: {version}\n"
                  f"# kernel: {opts.release}: linux-headers-{opts.release} and "
                  f"linux-image-{opts.release}-dbg {dbg_version}\n"
                  f"# command, in the example's directory: stap -p2 -r TREE "
                  f"OPTIONS SCRIPT ARGS (from its .meta; tests/corpus/corpus.py)\n"
                  f"# TREE: the headers' build tree plus, from the -dbg package, System.map, "
                  f"vmlinux and kernel/ (module debuginfo), and source/ (the common "
                  f"headers): stap_baseline.py kernel_tree()\n"
                  f"# SYSTEMTAP_DIR: a cache of its own, its tracepoint queries built "
                  f"before the timed runs: stap_baseline.py warm_up()\n"
                  f"# {run_note}\n"
                  + "".join(f"# {r}\n" for r in reruns) +
                  f"# {passed} of {len(results)} pass\n"
                  f"# format: PATH PASS | PATH FAIL first-error-line\n")
        for rel in sorted(results):
            ok, reason = results[rel]
            out.write(f"{rel} PASS\n" if ok else f"{rel} FAIL {reason}\n")
    print(f"stap -p2: {passed} of {len(results)} pass; wrote {opts.output}")


if __name__ == "__main__":
    main()
