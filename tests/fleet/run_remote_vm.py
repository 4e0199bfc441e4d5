#!/usr/bin/env python3
"""Remote targets and the Ansible playbook against real kernels (docs/fleet.md).

Boots one VM of each Debian cloud kernel with an ssh server (dropbear, on
QEMU's user network: only 127.0.0.1 is used, see ssh_vm.py), then checks
`xtap --remote`: the script built for each guest's kernel runs there with
its output streamed back; SIGINT mid-run ends the session with the end
probe's output and leaves no module or file behind; two hosts at once have
prefixed lines and end-of-run figures; an unreachable host, a refused key,
a login without root and a malformed target are one clear message each.
Fleet merges (--remote --merge): each guest feeds half of a deterministic
data set; the merged histograms, percentiles and arrays must equal those
one host prints of all of it. Then examples/fleet/ansible/run-bundle.yml
runs a bundle on the 6.12 guest (which also carries python3 for Ansible's
modules) and brings back its output, aggregates (merged by xtap --merge
DIR) and summary.

Prints one line per check and ends with "remote: N passed, N failed".
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ssh_vm import SshVm, free_port  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
K61 = "6.1.0-56-cloud-amd64"
K612 = "6.12.117+deb12-cloud-amd64"

# Different C for the two kernels, so the output shows which build ran.
WHICH = """
probe begin {
  printf("remote module for %s ran\\n", %( kernel_v >= "6.2" %? "6.12" %: "6.1" %))
  exit()
}
"""
TICKS = """
probe begin { printf("start\\n") }
probe timer.ms(100) { n++ }
probe end { printf("end after %s\\n", n > 0 ? "ticks" : "nothing") }
global n
"""
FAILS = 'probe begin { error("remote boom") }'
BUNDLED = """
global ticks
probe begin { printf("bundle ran on %s\\n", %( kernel_v >= "6.2" %? "6.12" %: "6.1" %)) }
probe timer.s(1) { printf("tick\\n"); ticks++ }
probe end { if (ticks > 1000) println("too many") }
"""
# Fleet merges: each guest feeds the values of every other i (which half
# by its kernel); with -x 1 (target() is read at run time, so the module is
# the same and built once per kernel), one host feeds them all. The end
# probe prints the module's own view, then "--".
MERGED = """
global lg, ln, byk[10], n, who
probe begin {
  if (target() == 1) { from = 0; step = 1 } else { from = %( kernel_v >= "6.2" %? 1 %: 0 %); step = 2 }
  for (i = from; i < 30000; i += step) {
    v = (i * 7919) % 100003 - 20000
    lg <<< v; ln <<< v; byk[i % 3] <<< v; n++
  }
  who = %( kernel_v >= "6.2" %? "6.12" %: "6.1" %)
  exit()
}
probe end {
  print(@hist_log(lg)); print(@hist_linear(ln, -20000, 80000, 5000))
  print(@quantiles(lg)); print(@quantiles(ln))
  print(@hist_log(byk[0])); printf("byk[1] median %d\\n", @median(byk[1]))
  println("--")
}
"""

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"{'PASS' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"), flush=True)


def write(work, name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def hist_blocks(text):
    """The histograms a text holds: from a "value |" line to the blank line after it."""
    return re.findall(r"^ *value \|-+ count\n.*?\n\n", text, re.M | re.S)


def check_merge(xtap, script, t1, t2, opts):
    """Two guests each run half of the data; the merged view equals one host's view of all of it."""
    d = ["-DMAXACTION=1000000"]

    def run(targets, *extra):
        hosts = sum((["--remote", "ssh://" + t] for t in targets), [])
        return subprocess.run([xtap, *hosts, *opts, *d, "--merge", *extra], capture_output=True, text=True,
                              timeout=240)

    t = time.time()
    whole = run([t1], "-x", "1", script)
    halves = run([t1, t2], script)
    print(f"     (merge: one host with all the data, two with half each: {time.time() - t:.0f} s)")
    module_view, _, whole_merged = whole.stdout.partition("--\n")
    # The merged view is what is not prefixed by a host; `who` differs per host.
    merged = "".join(line + "\n" for line in halves.stdout.splitlines() if not line.startswith("["))
    check("--remote --merge: both runs succeed", whole.returncode == 0 and halves.returncode == 0,
          f"exit {whole.returncode}/{halves.returncode}: {whole.stderr[-1500:]!r} {halves.stderr[-1500:]!r}")
    check("the merged view of two hosts' halves equals one host's view of all the data, exactly",
          merged and merged == whole_merged.replace('who="6.1"\n', "") and "n=30000\n" in merged,
          f"{merged!r} != {whole_merged!r}")
    blocks = hist_blocks(module_view)
    # One host's own view: its half only.
    host_view = "".join(line[len(t1) + 3:] + "\n" for line in halves.stdout.splitlines()
                        if line.startswith(f"[{t1}] "))
    quantiles = [line for line in module_view.splitlines() if line.startswith("count=")]
    check("the merged @hist_log, @hist_linear and array histograms are the module's own of all the data",
          len(blocks) == 3 and all(b in merged for b in blocks) and blocks[0] not in host_view,
          f"{blocks!r} not in {merged!r}")
    check("the merged @quantiles are the module's own of all the data",
          len(quantiles) == 2 and all(q + "\n" in merged for q in quantiles), f"{quantiles!r} {merged!r}")
    check("strings are not merged: each host's value, prefixed",
          f'[{t1}] who="6.1"\n' in halves.stdout and f'[{t2}] who="6.12"\n' in halves.stdout, halves.stdout)
    r = run([t1, t2], "--per-host", "--format", "json", script)
    try:
        doc = json.loads(r.stdout.splitlines()[-1])
        lg = next(g for g in doc["globals"] if g["name"] == "lg")
        n = next(g for g in doc["globals"] if g["name"] == "n")
    except (ValueError, IndexError, KeyError, StopIteration):
        doc, lg, n = {}, {}, {}
    check("--format json --per-host: the merged statistic and each host's share",
          r.returncode == 0 and lg.get("value", {}).get("count") == 30000
          and sum(b["count"] for b in lg["value"]["hist"]["buckets"]) == 30000
          and n.get("hosts") == {t1: 15000, t2: 15000} and {h["kernel"] for h in doc["hosts"]} == {K61, K612},
          f"exit {r.returncode}: {r.stdout[-1500:]!r} {r.stderr[-500:]!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory (build/)")
    args = ap.parse_args()
    xtap = os.path.join(args.build, "cli", "xtap")
    for k in (K61, K612):
        if not (os.path.exists(f"/boot/vmlinuz-{k}") and os.path.isdir(f"/lib/modules/{k}/build")):
            print(f"remote: needs {k} with headers (scripts/bootstrap.sh installs them)")
            print("remote: 0 passed, 1 failed")
            return 1
    for tool in ("ssh", "dropbear", "dropbearkey", "ansible-playbook"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode:
            print(f"remote: needs {tool} (scripts/bootstrap.sh installs openssh-client, dropbear-bin, ansible)")
            print("remote: 0 passed, 1 failed")
            return 1
    t_start = time.time()

    with tempfile.TemporaryDirectory(prefix="xtap-remote-test-") as work:
        which, ticks, fails, bundled, merged = (
            write(work, n, t) for n, t in (("which.stp", WHICH), ("ticks.stp", TICKS), ("fails.stp", FAILS),
                                           ("bundled.stp", BUNDLED), ("merged.stp", MERGED)))
        # No VM needed: a target xtap cannot use.
        r = subprocess.run([xtap, "--remote", "ftp://host", which], capture_output=True, text=True)
        check("a target of another scheme is refused", r.returncode == 1 and "ssh only" in r.stderr, r.stderr)
        r = subprocess.run([xtap, "--remote", "ssh://h", "-p4", which], capture_output=True, text=True)
        check("--remote with -p4 says what to do instead", r.returncode == 1 and "-p4 -r" in r.stderr, r.stderr)

        vm61 = SshVm(args.build, K61, work)
        vm612 = SshVm(args.build, K612, work, python=True)
        vms = (vm61, vm612)
        for vm in vms:
            vm.start()
        try:
            for vm in vms:
                check(f"{vm.release}: the guest's ssh server answers", vm.wait_ready(), "no ssh within 150 s")
            opts = sum((["--ssh-option", o] for o in vm61.ssh_options()), [])

            def remote(target, script, *extra, timeout=180):
                return subprocess.run([xtap, "--remote", target, *opts, *extra, script], capture_output=True,
                                      text=True, timeout=timeout)

            for vm in vms:
                rel = vm.release
                want = "6.12" if rel == K612 else "6.1"
                # The plain USER@HOST form for one, ssh:// for the other.
                t = time.time()
                if vm is vm61:
                    r = remote("root@127.0.0.1", which, "--ssh-option", f"Port={vm.port}")
                else:
                    r = remote(f"ssh://root@127.0.0.1:{vm.port}", which)
                print(f"     ({rel}: probe, build, copy, run and clean-up in {time.time() - t:.1f} s)")
                check(f"{rel}: xtap --remote builds for the host's kernel and runs it there",
                      r.returncode == 0 and r.stdout == f"remote module for {want} ran\n",
                      f"exit {r.returncode}: {r.stdout!r} {r.stderr!r}")

                # SIGINT mid-run: the end probe's output arrives, nothing stays behind.
                p = subprocess.Popen([xtap, "--remote", f"ssh://root@127.0.0.1:{vm.port}", *opts, "-m",
                                      "xtap_remote_sigint", ticks], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
                first = p.stdout.readline()  # streamed: here before the session ends
                time.sleep(2)
                p.send_signal(2)
                try:
                    rest, err = p.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    p.kill()
                    rest, err = p.communicate()
                check(f"{rel}: output streams back while the session runs", first == "start\n", repr(first))
                check(f"{rel}: SIGINT ends the remote session with its end probe",
                      p.returncode == 0 and rest == "end after ticks\n", f"exit {p.returncode}: {rest!r} {err!r}")
                left = vm.ssh("test -e /sys/module/xtap_remote_sigint && echo module; "
                              "grep -c '^xtap_' /proc/modules; ls /tmp | grep -c xtap-remote")
                check(f"{rel}: ... and leaves no module or temporary directory on the host",
                      left.stdout.split() == ["0", "0"], repr(left.stdout + left.stderr))

                r = remote(f"ssh://root@127.0.0.1:{vm.port}", fails)
                check(f"{rel}: the host's exit status and messages come back",
                      r.returncode == 1 and "remote boom" in r.stderr, f"exit {r.returncode}: {r.stderr!r}")

            # A reader that goes away (| head) ends the session as Ctrl-C does.
            chatty = write(work, "chatty.stp", 'probe timer.ms(50) { printf("line\\n") }')
            cmd = " ".join([xtap, "--remote", f"ssh://root@127.0.0.1:{vm61.port}", *opts, "-m", "xtap_remote_head",
                            chatty, "| head -2"])
            try:
                r = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, timeout=90)
                ended = True
            except subprocess.TimeoutExpired as e:
                r, ended = e, False
            left = vm61.ssh("test -e /sys/module/xtap_remote_head && echo module; ls /tmp | grep -c xtap-remote")
            check("a closed output pipe ends the remote session cleanly",
                  ended and r.stdout == "line\nline\n" and left.stdout.split() == ["0"],
                  f"{getattr(r, 'stdout', '')!r} {getattr(r, 'stderr', '')!r} left {left.stdout!r}")

            # Two hosts at once.
            t1, t2 = (f"root@127.0.0.1:{vm.port}" for vm in vms)
            r = subprocess.run([xtap, "--remote", "ssh://" + t1, "--remote", "ssh://" + t2, *opts, which],
                               capture_output=True, text=True, timeout=180)
            check("two hosts at once: each line prefixed by its host",
                  r.returncode == 0 and sorted(r.stdout.splitlines()) ==
                  sorted([f"[{t1}] remote module for 6.1 ran", f"[{t2}] remote module for 6.12 ran"]),
                  f"exit {r.returncode}: {r.stdout!r} {r.stderr!r}")
            check("two hosts at once: end-of-run figures for both",
                  "xtap: 2 hosts: 2 ran to the end, 0 failed; 2 lines" in r.stderr
                  and re.search(rf"{re.escape(t1)}  {K61}  exit 0  1 lines", r.stderr)
                  and re.search(rf"{re.escape(t2)}  {re.escape(K612)}  exit 0  1 lines", r.stderr), r.stderr)

            # --prometheus: each host's runner serves its 127.0.0.1, forwarded here to PORT+i.
            port = free_port()
            p = subprocess.Popen([xtap, "--remote", "ssh://" + t1, "--remote", "ssh://" + t2, *opts,
                                  "--prometheus", f"127.0.0.1:{port}", "-T", "20", ticks],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            pages = {}
            deadline = time.time() + 120
            while time.time() < deadline and len(pages) < 2 and p.poll() is None:
                for i in (0, 1):
                    try:
                        with urllib.request.urlopen(f"http://127.0.0.1:{port + i}/metrics", timeout=5) as u:
                            text = u.read().decode()
                        if re.search(r"^xtap_global_n [1-9]", text, re.M):
                            pages[i] = text
                    except OSError:
                        pass
                time.sleep(1)
            try:
                out, err = p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
            check("--prometheus with two hosts: each host's /metrics forwarded to PORT and PORT+1",
                  len(pages) == 2 and f"/metrics forwarded to http://127.0.0.1:{port + 1}/metrics" in err,
                  f"scraped {sorted(pages)}; exit {p.returncode}: {err!r}")
            check("... and the sessions end with their end probes", p.returncode == 0 and
                  out.count("end after ticks") == 2, f"exit {p.returncode}: {out!r} {err!r}")

            r = subprocess.run([xtap, "--remote", "ssh://" + t1, "--remote", "ssh://" + t2, *opts,
                                "--format", "json", which], capture_output=True, text=True, timeout=180)
            try:
                records = [json.loads(line) for line in r.stdout.splitlines()]
            except ValueError:
                records = []
            check("two hosts at once with --format json: each record names its host",
                  r.returncode == 0 and {(x.get("host"), x.get("type")) for x in records} ==
                  {(t1, "output"), (t1, "summary"), (t2, "output"), (t2, "summary")},
                  f"exit {r.returncode}: {r.stdout!r} {r.stderr!r}")

            check_merge(xtap, merged, t1, t2, opts)

            # Hosts that cannot run: one message and a hint each.
            dead = f"root@127.0.0.1:{free_port()}"
            r = remote("ssh://" + dead, which)
            lines = r.stderr.splitlines()
            check("an unreachable host is one message with a hint",
                  r.returncode == 1 and len(lines) == 2 and lines[0].startswith(f"xtap: {dead}: cannot reach the host")
                  and "Connection refused" in lines[0] and lines[1].startswith("  hint:")
                  and f"ssh -p {dead.split(':')[1]} root@127.0.0.1 true" in lines[1], r.stderr)
            r = subprocess.run([xtap, "--remote", "ssh://" + t1, "--remote", "ssh://" + dead, *opts, which],
                               capture_output=True, text=True, timeout=180)
            check("an unreachable host among several: the others still run",
                  r.returncode == 1 and r.stdout == f"[{t1}] remote module for 6.1 ran\n"
                  and "2 hosts: 1 ran to the end, 1 failed" in r.stderr, f"exit {r.returncode}: {r.stdout!r} {r.stderr!r}")
            other_key = os.path.join(work, "other_key")
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other_key], check=True)
            r = subprocess.run([xtap, "--remote", "ssh://" + t1, "--ssh-option", f"IdentityFile={other_key}",
                                "--ssh-option", "IdentitiesOnly=yes", *opts[2:], which],
                               capture_output=True, text=True, timeout=60)
            check("a refused key is one message with a hint",
                  r.returncode == 1 and "ssh authentication failed" in r.stderr and "hint:" in r.stderr
                  and len(r.stderr.splitlines()) == 2, r.stderr)
            r = remote(f"ssh://tester@127.0.0.1:{vm61.port}", which)
            check("a login without root is refused with the fix",
                  r.returncode == 1 and "logged in as uid 1000" in r.stderr and "ssh://root@127.0.0.1" in r.stderr,
                  r.stderr)

            # Ansible: a bundle for both kernels on the 6.12 guest.
            bundle = os.path.join(work, "bundle")
            b = subprocess.run([xtap, "-p4", "--kernels", f"{K61},{K612}", "-o", bundle, bundled],
                               capture_output=True, text=True)
            check("a bundle for the playbook builds", b.returncode == 0, b.stderr)
            inv = write(work, "inventory.ini",
                        "[xtap_fleet]\n"
                        f"vm612 ansible_host=127.0.0.1 ansible_port={vm612.port} ansible_user=root "
                        f"ansible_ssh_private_key_file={vm612.key} ansible_python_interpreter=/usr/bin/python3 "
                        "ansible_ssh_common_args='-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null' "
                        # dropbear has no SFTP server and the guest no scp: files go over ssh's stdin.
                        "ansible_ssh_transfer_method=piped\n")
            results_dir = os.path.join(work, "results")
            env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_PIPELINING="1", ANSIBLE_HOST_KEY_CHECKING="False",
                       ANSIBLE_LOCAL_TEMP=os.path.join(work, "ansible-tmp"), ANSIBLE_RETRY_FILES_ENABLED="0")
            t = time.time()
            a = subprocess.run(["ansible-playbook", "-i", inv, os.path.join(ROOT, "examples", "fleet", "ansible",
                                                                            "run-bundle.yml"),
                                "-e", f"xtap_bundle={bundle}", "-e", f"xtap_runner={args.build}/cli/xtap-run",
                                "-e", "xtap_seconds=3", "-e", f"xtap_results={results_dir}"],
                               capture_output=True, text=True, env=env, timeout=300)
            check("ansible-playbook run-bundle.yml succeeds", a.returncode == 0 and "failed=0" in a.stdout,
                  a.stdout[-2000:] + a.stderr[-1000:])
            print(f"     (playbook: {time.time() - t:.0f} s)")
            out = os.path.join(results_dir, "vm612", "output.txt")
            text = open(out).read() if os.path.exists(out) else ""
            check("the playbook brings back the host's output (its kernel's module, run for the set time)",
                  text.startswith("bundle ran on 6.12\n") and 2 <= text.count("tick\n") <= 3
                  and set(text.splitlines()[1:]) == {"tick"}, repr(text))
            summary_path = os.path.join(results_dir, "vm612", "summary.json")
            summary = json.load(open(summary_path)) if os.path.exists(summary_path) else {}
            r = subprocess.run([xtap, "--merge", results_dir], capture_output=True, text=True)
            check("xtap --merge over the playbook's results: the fleet view of the fetched aggregates",
                  r.returncode == 0 and re.fullmatch(r"ticks=[23]\n", r.stdout)
                  and "fleet view of module" in r.stderr and f"({K612})" in r.stderr, f"exit {r.returncode}: {r.stdout!r} {r.stderr!r}")
            check("... and its summary", summary.get("kernel") == K612 and summary.get("exit") == 0
                  and summary.get("messages") == [] and summary.get("host") == "vm612", summary)
            left = vm612.ssh("ls /var/tmp; grep -c '^xtap_' /proc/modules")
            check("... and leaves nothing on the host", left.stdout.split() == ["0"], repr(left.stdout))
        finally:
            for vm in vms:
                out, job, problems = vm.stop()
                check(f"{vm.release}: clean kernel log", not problems.strip(), problems + out[-500:])
    print(f"     (all: {time.time() - t_start:.0f} s)")
    passed = sum(results)
    print(f"remote: {passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
