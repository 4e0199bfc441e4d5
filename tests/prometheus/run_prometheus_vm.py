#!/usr/bin/env python3
"""xtap-run --prometheus scraped by a real Prometheus (issue 28).

    python3 tests/prometheus/run_prometheus_vm.py [--build DIR] [--kernel REL ...]

For each installed cloud kernel (6.1 and 6.12), runs a script with a
counter, an array with awkward keys and a @hist_log statistic (-t, so
that the probes have their own counters) in a VM: for all but the newest
kernel, a module built with -p4 booted with xtap-vmbatch, whose guest
loads its virtio-net driver and runs xtap-run --prometheus 0.0.0.0:9100,
forwarded to a free port of 127.0.0.1 here; for the newest, the way a
user runs it, xtap --vm --prometheus 127.0.0.1:PORT. Both VMs run at
once. Debian's prometheus runs here with a temporary
configuration and storage (scrape_interval 1s) and scrapes both; the test
asks its HTTP API (/api/v1/query) for the values and compares them with
what the script computed, and the counter with what the end probe printed.
Ends with "prometheus: N passed, N failed".
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fleet"))
from ssh_vm import free_port, module_chain  # noqa: E402

import lzma  # noqa: E402

SCRIPT = r"""
global ticks, reads, lat
probe begin {
  reads["read", 1] = 7
  reads["wr\"ite\\", 2] = 9
  for (i = 1; i <= 100; i++) lat <<< i
}
probe timer.ms(100) { ticks++ }
probe end { printf("ticks=%d\n", ticks); print(@hist_log(lat)) }
"""
GUEST_SECONDS = 40  # the session's length in the guest: boot + scrapes + checks

# PromQL -> the value the script computed ("+" : any value above 0).
EXPECT = {
    'xtap_global_reads{key0="read",key1="1"}': 7,
    'xtap_global_reads{key0="wr\\"ite\\\\",key1="2"}': 9,
    "xtap_global_lat_count": 100,
    "xtap_global_lat_sum": 5050,
    'xtap_global_lat_bucket{le="0"}': 0,
    'xtap_global_lat_bucket{le="1"}': 1,
    'xtap_global_lat_bucket{le="3"}': 3,
    'xtap_global_lat_bucket{le="63"}': 63,
    'xtap_global_lat_bucket{le="127"}': 100,
    'xtap_global_lat_bucket{le="+Inf"}': 100,
    "xtap_global_ticks": "+",
    "xtap_hits_total": "+",
    'xtap_probe_hits_total{probe="timer.ms(100)"}': "+",
    "up": 1,
}

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {what}")
    else:
        failed += 1
        print(f"FAIL {what}")


def installed_kernels():
    out = []
    for name in sorted(os.listdir("/boot")):
        if name.startswith("vmlinuz-") and name.endswith("-cloud-amd64"):
            rel = name[len("vmlinuz-"):]
            if os.path.exists(f"/lib/modules/{rel}/build/Makefile"):
                out.append(rel)
    return out


def manifest(build, rel, ko, port, work):
    lines = [f"forward {port} 9100", "memory-mb 512"]
    for i, path in enumerate(module_chain(rel, ["virtio_pci", "virtio_net"])):
        src = f"/lib/modules/{rel}/{path}"
        dst = os.path.join(work, f"{rel}-{i:02d}.ko")
        data = open(src, "rb").read()
        open(dst, "wb").write(lzma.decompress(data) if src.endswith(".xz") else data)
        lines.append(f"file /netmods/{i:02d}.ko {dst}")
    setup = ("for m in /netmods/*.ko; do insmod $m; done; ip link set lo up; "
             "ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2")
    lines += ["job prom", f"module {ko}", "arg --prometheus", "arg 0.0.0.0:9100", f"before {setup}",
              f"command sleep {GUEST_SECONDS}", f"timeout {GUEST_SECONDS + 60}"]
    path = os.path.join(work, f"{rel}.manifest")
    open(path, "w").write("\n".join(lines) + "\n")
    return path


def query(api, promql):
    url = f"http://{api}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    with urllib.request.urlopen(url, timeout=5) as r:
        data = json.load(r)
    return [float(x["value"][1]) for x in data["data"]["result"]]


def value(api, promql, job):
    # the job's label goes inside the selector's braces (or adds them)
    sel = promql.replace("}", f',job="{job}"}}') if "}" in promql else promql + f'{{job="{job}"}}'
    v = query(api, sel)
    return v[0] if len(v) == 1 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--kernel", action="append")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    xtap = os.path.join(build, "cli", "xtap")
    if not shutil.which("prometheus"):
        print("prometheus: Debian's prometheus is not installed (scripts/bootstrap.sh)")
        print("prometheus: 0 passed, 1 failed")
        return 1
    kernels = args.kernel or installed_kernels()
    work = tempfile.mkdtemp(prefix="xtap-prom-")
    script = os.path.join(work, "prom.stp")
    open(script, "w").write(SCRIPT)
    vms, targets = [], []
    for n, rel in enumerate(kernels):
        job = "k" + re.sub(r"[^A-Za-z0-9]", "_", rel.split("-")[0])
        port = free_port()
        out = os.path.join(work, f"{rel}.out")
        if n == len(kernels) - 1:
            # The last kernel through the driver, as a user would run it:
            # xtap --vm sets up the guest's network card and the forward.
            os.makedirs(out, exist_ok=True)
            proc = subprocess.Popen([xtap, "-q", "-t", "--vm", "-r", rel, "--prometheus",
                                     f"127.0.0.1:{port}", "-T", str(GUEST_SECONDS), script], cwd=work,
                                    stdout=open(os.path.join(out, "prom.out"), "w"), stderr=subprocess.PIPE)
            vms.append((rel, job, proc, out))
            targets.append((job, port))
            continue
        ko_name = "prom_" + job
        r = subprocess.run([xtap, "-q", "-t", "-r", rel, "-p4", "-m", ko_name, script], cwd=work,
                           capture_output=True, text=True)
        check(r.returncode == 0, f"{rel}: the script builds with -t ({r.stderr.strip()[-300:]})")
        if r.returncode:
            continue
        proc = subprocess.Popen([os.path.join(build, "cli", "xtap-vmbatch"), "--kernel", rel,
                                 manifest(build, rel, os.path.join(work, ko_name + ".ko"), port, work), out],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        vms.append((rel, job, proc, out))
        targets.append((job, port))
    api_port = free_port()
    api = f"127.0.0.1:{api_port}"
    cfg = os.path.join(work, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
                "scrape_configs:\n")
        for job, port in targets:
            f.write(f"  - job_name: {job}\n    static_configs:\n      - targets: ['127.0.0.1:{port}']\n")
    prom = subprocess.Popen(["prometheus", f"--config.file={cfg}", f"--storage.tsdb.path={work}/tsdb",
                             f"--web.listen-address={api}", "--log.level=warn"],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "prometheus.log"), "w"))
    try:
        results = {job: {} for _, job, _, _ in vms}
        first_ticks = {}
        deadline = time.time() + GUEST_SECONDS + 90
        # Until every expected value is there for every VM (their boots take a while).
        while time.time() < deadline:
            time.sleep(2)
            for _, job, _, _ in vms:
                for q in EXPECT:
                    try:
                        v = value(api, q, job)
                    except OSError:
                        v = None
                    if v is not None:
                        # up is 0 again once the guest has ended: keep its best
                        results[job][q] = max(v, results[job].get(q, v)) if q == "up" else v
                        if q == "xtap_global_ticks":
                            first_ticks.setdefault(job, v)
            if all(len(r) == len(EXPECT) and results[j]["xtap_global_ticks"] > first_ticks[j]
                   for j, r in results.items()):
                break
        for rel, job, _, _ in vms:
            for q, want in EXPECT.items():
                got = results[job].get(q)
                ok = got is not None and (got > 0 if want == "+" else got == want)
                check(ok, f"{rel}: Prometheus has {q} = {got} (script: {want})")
            check(results[job].get("xtap_global_ticks", 0) > first_ticks.get(job, 0),
                  f"{rel}: the counter grows between scrapes ({first_ticks.get(job)} -> "
                  f"{results[job].get('xtap_global_ticks')})")
        for rel, job, proc, out in vms:
            try:
                proc.wait(timeout=GUEST_SECONDS + 120)
            except subprocess.TimeoutExpired:
                proc.kill()
            err = proc.stderr.read().decode(errors="replace")
            check(proc.returncode == 0, f"{rel}: the VM run ended cleanly (exit {proc.returncode}) {err[-300:]}")
            text = open(os.path.join(out, "prom.out")).read() if os.path.exists(os.path.join(out, "prom.out")) else ""
            ticks = next((int(x[6:]) for x in text.split() if x.startswith("ticks=")), -1)
            last = results[job].get("xtap_global_ticks", -1)
            check(ticks >= last > 0, f"{rel}: the end probe's ticks={ticks} >= the last scraped {last}")
    finally:
        prom.terminate()
        prom.wait(timeout=30)
        for _, _, proc, _ in vms:
            if proc.poll() is None:
                proc.kill()
    if failed:
        print(f"work directory kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    print(f"prometheus: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
