#!/usr/bin/env python3
"""xtap --vm --monitor driven as a person would, under tmux (issue 28).

    python3 tests/monitor/run_monitor_tmux.py [--build DIR] [--kernel REL ...]

For each installed cloud kernel (6.1 and 6.12, both at once), starts
`xtap --vm -r REL --monitor SCRIPT` in a detached tmux session of its own
(a private tmux server, -L), a 150x45 terminal. The script has a counter,
an array and a line of output a second. The test reads the screen with
`tmux capture-pane` and checks: the probe rows with their hits, and the
hits growing between two refreshes; the counter and the array's top
entries among the globals; the script's output in the pane. Then it sends
keys: s (the sort column moves on), p (PAUSED, the screen stays the same
over two refreshes), p again (it moves again), r (the hits start again
from 0: below what they were), q (the view goes, the end probe runs and
its output is printed on the plain terminal, xtap exits 0).
Ends with "monitor: N passed, N failed".
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SCRIPT = r"""
global ticks, reads
probe timer.ms(100) { ticks++; reads[ticks % 3 ? "odd" : "third"]++ }
probe timer.s(1) { printf("tick %d\n", ticks) }
probe end { printf("END ticks=%d\n", ticks) }
"""
BOOT_WAIT = 240  # a loaded TCG guest can take minutes to boot

passed = failed = 0


def check(ok, what, screen=None):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {what}")
    else:
        failed += 1
        print(f"FAIL {what}")
        if screen is not None:
            print("     screen:\n" + "\n".join("     | " + line for line in screen.splitlines()))


def installed_kernels():
    out = []
    for name in sorted(os.listdir("/boot")):
        if name.startswith("vmlinuz-") and name.endswith("-cloud-amd64"):
            rel = name[len("vmlinuz-"):]
            if os.path.exists(f"/lib/modules/{rel}/build/Makefile"):
                out.append(rel)
    return out


class Pane:
    """One kernel's tmux session on the test's own tmux server."""

    def __init__(self, sock, name):
        self.sock, self.name = sock, name

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.sock, *args], capture_output=True, text=True)

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", self.name).stdout

    def keys(self, *keys):
        self.tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, pred, timeout):
        end = time.time() + timeout
        s = self.screen()
        while time.time() < end:
            if pred(s):
                return s, True
            time.sleep(0.5)
            s = self.screen()
        return s, pred(s)


def hits(screen, probe="timer.ms(100)"):
    """The hits column of a probe's row, or None."""
    for line in screen.splitlines():
        f = line.split()
        if len(f) >= 5 and f[4] == probe and f[0].isdigit():
            return int(f[0])
    return None


def header(screen):
    return screen.splitlines()[0] if screen else ""


def drive(rel, pane):
    """The checks on one kernel's view."""
    s, ok = pane.wait_for(lambda s: (hits(s) or 0) > 0, BOOT_WAIT)
    check(ok, f"{rel}: the view shows timer.ms(100)'s row with hits", s)
    if not ok:
        return
    check("xtap monitor: monitor.stp" in header(s), f"{rel}: the title names the script", s)
    check(hits(s, "timer.s(1)") is not None, f"{rel}: timer.s(1) has a row too", s)
    s, ok = pane.wait_for(lambda s: re.search(r"ticks = [1-9]", s) and "reads[\"odd\"] = " in s, 10)
    check(ok, f"{rel}: the counter and the array's top entries are among the globals", s)
    s, ok = pane.wait_for(lambda s: re.search(r"^tick \d+", s, re.M), 10)
    check(ok, f"{rel}: the script's output is in the pane", s)
    first = hits(s)
    s, ok = pane.wait_for(lambda s: (hits(s) or 0) > first, 5)
    check(ok, f"{rel}: the hits grow between refreshes ({first} -> {hits(s)})", s)
    pane.keys("s")
    s, ok = pane.wait_for(lambda s: "sort: hits/s" in header(s), 5)
    check(ok, f"{rel}: s sorts by the next column (hits/s)", s)
    pane.keys("p")
    s, ok = pane.wait_for(lambda s: "PAUSED" in header(s), 5)
    time.sleep(2.5)
    s2 = pane.screen()
    check(ok and s == s2, f"{rel}: p pauses: the screen stays the same over two refreshes", s2)
    pane.keys("p")
    s, ok = pane.wait_for(lambda s: "PAUSED" not in header(s) and (hits(s) or 0) > hits(s2), 5)
    check(ok, f"{rel}: p again resumes", s)
    before = hits(s)
    time.sleep(1.5)
    before = hits(pane.screen())
    pane.keys("r")
    s, ok = pane.wait_for(lambda s: hits(s) is not None and hits(s) < before, 5)
    check(ok, f"{rel}: r resets the counts ({before} -> {hits(s)})", s)
    pane.keys("q")
    s, ok = pane.wait_for(lambda s: "XTAP-EXIT=" in s, 120)
    check(ok and "xtap monitor:" not in s, f"{rel}: q leaves the view and xtap exits", s)
    check(re.search(r"^END ticks=\d+", s, re.M) is not None,
          f"{rel}: the end probe's output is printed after the view", s)
    check("XTAP-EXIT=0" in s, f"{rel}: xtap exits 0", s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--kernel", action="append")
    args = ap.parse_args()
    xtap = os.path.join(os.path.abspath(args.build), "cli", "xtap")
    if not shutil.which("tmux"):
        print("monitor: tmux is not installed (scripts/bootstrap.sh)")
        print("monitor: 0 passed, 1 failed")
        return 1
    work = tempfile.mkdtemp(prefix="xtap-monitor-")
    script = os.path.join(work, "monitor.stp")
    open(script, "w").write(SCRIPT)
    sock = f"xtap-monitor-{os.getpid()}"
    panes = []
    try:
        for rel in args.kernel or installed_kernels():
            name = "k" + re.sub(r"[^0-9]", "", rel.split("-")[0])
            cmd = (f"{xtap} -q --vm -r {rel} --monitor {script}; echo XTAP-EXIT=$?; sleep 3600")
            subprocess.run(["tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-s", name,
                            "-x", "150", "-y", "45", "-c", work, cmd], check=True)
            panes.append((rel, Pane(sock, name)))
        # Both VMs boot at once; each is checked in turn.
        for rel, pane in panes:
            drive(rel, pane)
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True)
    if failed:
        print(f"work directory kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    print(f"monitor: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
