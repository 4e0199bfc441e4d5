"""The peers xtap is measured against, set up for side-by-side runs in one VM boot.

SystemTap 4.8 (Debian's systemtap package) builds its modules on the host
for the 6.1 cloud kernel and runs them in the guest with staprun. It needs:
- a copy of its runtime with task_work_cancel() changed to
  task_work_cancel_func() (the 6.1 stable backport changed its signature);
- a build tree holding the kernel's real System.map, which Debian ships only
  in linux-image-RELEASE-dbg (the one in /boot is a stub), its vmlinux (for
  kernel.function and kernel.trace) and the common headers (source/).
Its first kernel.trace probe compiles a query module per tracepoint header
(minutes); SYSTEMTAP_DIR keeps that cache between runs.

bpftrace 0.17 (Debian's bpftrace package) runs in the guest itself, which
gets the binary and its shared libraries (about 200 MB: LLVM, clang).

install() puts both packages on the machine (idempotent); everything else
here works without them and says so.
"""
import os
import re
import shutil
import subprocess
import sys

STAP_PROGRAMS = ["/usr/bin/staprun", "/usr/lib/systemtap/stapio"]
BPFTRACE = "/usr/bin/bpftrace"


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def find_kernel():
    """The installed 6.1 cloud kernel with headers: the release both tools build for."""
    for image in sorted(os.listdir("/boot")):
        if image.startswith("vmlinuz-6.1.") and image.endswith("-cloud-amd64"):
            rel = image[len("vmlinuz-"):]
            if os.path.exists(f"/lib/modules/{rel}/build/Makefile"):
                return rel
    sys.exit("bench: no 6.1 cloud kernel with headers installed (scripts/bootstrap.sh)")


def install():
    """apt-get the peers when they are missing (the bench's own dependencies,
    not xtap's: scripts/bootstrap.sh does not install them)."""
    missing = [p for p, b in (("systemtap", "/usr/bin/stap"), ("bpftrace", BPFTRACE))
               if not os.path.exists(b)]
    if not missing:
        return
    print("bench: installing", " ".join(missing), flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-q"], check=True, env=env, stdout=subprocess.DEVNULL)
    subprocess.run(["apt-get", "install", "-y", "-q", *missing], check=True, env=env,
                   stdout=subprocess.DEVNULL)


def default_system_map(rel):
    return f"/usr/lib/debug/boot/System.map-{rel}"


def stap_tree(rel, system_map, work):
    """-r DIR for stap: the kernel's build directory plus the real System.map
    (kprobe.function needs it), the -dbg vmlinux and source/. None (with the reason printed) when stap or
    the -dbg package is missing."""
    if not shutil.which("stap"):
        print("stap: not installed (apt-get install systemtap): no stap figures")
        return None
    system_map = system_map or default_system_map(rel)
    if not os.path.exists(system_map):
        print("stap: no real System.map for", rel, "(install linux-image-" + rel + "-dbg)")
        return None
    build = os.path.join(work, "kbuild")
    if os.path.isdir(build):
        return build
    os.mkdir(build)
    real = os.path.realpath(f"/lib/modules/{rel}/build")
    for name in os.listdir(real):
        os.symlink(os.path.join(real, name), os.path.join(build, name))
    shutil.copy(system_map, os.path.join(build, "System.map"))
    source = f"/lib/modules/{rel}/source"
    if os.path.exists(source) and not os.path.exists(os.path.join(build, "source")):
        os.symlink(os.path.realpath(source), os.path.join(build, "source"))
    vmlinux = f"/usr/lib/debug/boot/vmlinux-{rel}"
    if os.path.exists(vmlinux) and not os.path.exists(os.path.join(build, "vmlinux")):
        os.symlink(vmlinux, os.path.join(build, "vmlinux"))
    return build


def stap_runtime(work, rel="6.1."):
    """-R DIR for stap: its runtime, copied, and patched for the 6.1 stable kernels."""
    runtime = os.path.join(work, "stap-runtime")
    if os.path.isdir(runtime):
        return runtime
    shutil.copytree("/usr/share/systemtap/runtime", runtime)
    twc = os.path.join(runtime, "stp_task_work.c")
    src = open(twc).read()
    fixed = src.replace("twork = task_work_cancel(task, func);",
                        "twork = task_work_cancel_func(task, func);")
    if rel.startswith("6.1.") and fixed != src:
        open(twc, "w").write(fixed)
        print("stap: runtime copied, task_work_cancel() -> task_work_cancel_func() (6.1 stable backport)")
    return runtime


def stap_env(rel):
    env = dict(os.environ, LC_ALL="C", SYSTEMTAP_DIR=f"/tmp/xtap-stap-home-{rel}")
    os.makedirs(env["SYSTEMTAP_DIR"], exist_ok=True)
    return env


def build_stap_module(rel, work, script, name, options=(), args=(), system_map=""):
    """stap -p4 of `script` into WORK/NAME.ko; None when stap is not usable."""
    tree = stap_tree(rel, system_map, work)
    if not tree:
        return None
    sh(["stap", "-p4", "-r", tree, "-R", stap_runtime(work), "-m", name, *options, script, *args],
       cwd=work, env=stap_env(rel))
    return os.path.join(work, name + ".ko")


def build_stap(rel, system_map, work):
    """The set-up alone (tree and runtime under WORK), for callers that run
    stap themselves (tests/stapcompare, the corpus's stap runs); false when
    stap is not usable."""
    return stap_tree(rel, system_map, work) is not None and bool(stap_runtime(work))


def _guest_files(programs):
    libs = set()
    for b in programs:
        for line in sh(["ldd", b]).stdout.splitlines():
            m = re.search(r"(/\S+\.so[^\s]*)", line)
            if m:
                libs.add(m.group(1))
    return [f"file {b} {b}" for b in programs] + \
           [f"file {lib} {os.path.realpath(lib)}" for lib in sorted(libs)]


def stap_guest_files():
    """xtap-vmbatch "file" lines for staprun, stapio and their shared
    libraries (the guest has none of its own)."""
    return _guest_files(STAP_PROGRAMS)


def bpftrace_available():
    return os.path.exists(BPFTRACE)


def bpftrace_guest_files():
    """"file" lines for bpftrace and its libraries."""
    return _guest_files([BPFTRACE])


def run_batch(build, rel, lines, work):
    """Write the manifest `lines` and run it in one VM boot; the results
    directory. Exits when the VM did not finish; kernel problems are printed."""
    manifest = os.path.join(work, "manifest")
    open(manifest, "w").write("\n".join(lines) + "\n")
    out = os.path.join(work, "out")
    rc = subprocess.run([os.path.join(build, "cli/xtap-vmbatch"), "--kernel", rel, manifest, out]).returncode
    if rc == 2:
        sys.exit(f"bench: the VM batch did not finish; see {out}")
    if rc == 1:
        print(f"bench: the kernel log has problems: {open(os.path.join(out, 'problems.txt')).read()}")
    return out
