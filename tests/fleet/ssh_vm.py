"""A test VM with an ssh server, for the remote-target tests (docs/fleet.md).

SshVm boots a Debian cloud kernel with xtap-vmbatch, gives it a virtio-net
NIC on QEMU's user network with 127.0.0.1:PORT forwarded to the guest's
port 22, and runs dropbear in the guest with a host key and an authorized
client key generated here, for this run only. Nothing but 127.0.0.1 is
used. The guest stays up until stop() (or the job's time limit).
"""
import lzma
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def module_chain(release, names):
    """The module files (relative to /lib/modules/RELEASE) that `names`
    need, dependencies first, from modules.dep."""
    deps = {}
    with open(f"/lib/modules/{release}/modules.dep") as f:
        for line in f:
            path, _, rest = line.partition(":")
            deps[path] = rest.split()
    by_name = {re.sub(r"\.ko(\.xz|\.zst|\.gz)?$", "", os.path.basename(p)).replace("-", "_"): p for p in deps}
    order = []

    def visit(path):
        for d in deps.get(path, []):
            visit(d)
        if path not in order:
            order.append(path)

    for n in names:
        if n in by_name:  # built in when absent
            visit(by_name[n])
    return order


def shared_libraries(program):
    out = subprocess.run(["ldd", program], capture_output=True, text=True).stdout
    return [m.group(1) for m in re.finditer(r"(/\S+) \(0x", out)]


PYTHON_SKIP = {"test", "idlelib", "tkinter", "ensurepip", "lib2to3", "pydoc_data", "turtledemo",
               "site-packages", "dist-packages"}


def python_files():
    """(guest, host) pairs for Debian's python3 in the guest, which Ansible's
    modules need: the interpreter, its standard library (without tests,
    Tk and the build configuration) and the libraries of both."""
    pairs = [("/usr/bin/python3", "/usr/bin/python3.11")]
    libs = set(shared_libraries("/usr/bin/python3.11"))
    root = "/usr/lib/python3.11"
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in PYTHON_SKIP and not d.startswith("config-")]
        for f in files:
            p = os.path.join(dirpath, f)
            if " " in p or not os.path.isfile(p):
                continue
            pairs.append((p, p))
            if f.endswith(".so"):
                libs.update(shared_libraries(p))
    pairs += [(lib, lib) for lib in sorted(libs)]
    return pairs


GUEST_SETUP = r"""
for m in /netmods/*.ko; do insmod $m || echo "insmod $m failed"; done
ip link set lo up
ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
chmod 700 /root /root/.ssh; chmod 755 /home/tester /home/tester/.ssh; chmod 644 /home/tester/.ssh/authorized_keys
dropbear -F -E -s -p 22 -r /etc/dropbear/host_key -P /run/dropbear.pid > /run/dropbear.log 2>&1 &
while [ ! -e /run/stop ]; do sleep 1; done
cat /run/dropbear.log
"""


class SshVm:
    def __init__(self, build, release, work, ports=1, lifetime_s=240, extra_files=(), python=False):
        self.build, self.release, self.work = build, release, work
        self.ports = [free_port() for _ in range(ports)]
        self.port = self.ports[0]
        self.dir = tempfile.mkdtemp(prefix="sshvm-", dir=work)
        self.key = os.path.join(work, "client_key")
        if not os.path.exists(self.key):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", self.key], check=True)
        host_key = os.path.join(self.dir, "host_key")
        subprocess.run(["dropbearkey", "-t", "ed25519", "-f", host_key], check=True, capture_output=True)
        auth = os.path.join(self.dir, "authorized_keys")
        shutil.copy(self.key + ".pub", auth)
        os.chmod(auth, 0o600)
        # root, and an ordinary user (uid 1000) for the "needs root" check.
        files = {"/etc/passwd": "root:x:0:0:root:/root:/bin/sh\ntester:x:1000:1000::/home/tester:/bin/sh\n",
                 "/etc/group": "root:x:0:\ntester:x:1000:\n", "/etc/shells": "/bin/sh\n"}
        lines = []
        for guest, text in files.items():
            p = os.path.join(self.dir, os.path.basename(guest))
            open(p, "w").write(text)
            lines.append(f"file {guest} {p}")
        lines += [f"file /etc/dropbear/host_key {host_key}", f"file /root/.ssh/authorized_keys {auth}",
                  "file /sbin/dropbear /usr/sbin/dropbear",
                  f"file /home/tester/.ssh/authorized_keys {auth}"]
        lines += [f"file {lib} {lib}" for lib in shared_libraries("/usr/sbin/dropbear")]
        for i, rel in enumerate(module_chain(release, ["virtio_pci", "virtio_net"])):
            src = f"/lib/modules/{release}/{rel}"
            dst = os.path.join(self.dir, f"{i:02d}_{os.path.basename(rel).split('.ko')[0]}.ko")
            data = open(src, "rb").read()
            open(dst, "wb").write(lzma.decompress(data) if src.endswith(".xz") else data)
            lines.append(f"file /netmods/{os.path.basename(dst)} {dst}")
        libs = set(shared_libraries("/usr/sbin/dropbear"))
        if python:
            lines += [f"file {g} {h}" for g, h in python_files() if g not in libs]
        lines += [f"file {g} {h}" for g, h in extra_files]
        lines += [f"forward {p} 22" for p in self.ports]
        lines += ["memory-mb " + ("1024" if python else "768"), "job sshd", "command " + GUEST_SETUP.strip().replace("\n", "; ")
                  .replace("; &", " &").replace("&;", "&").replace("do;", "do").replace("then;", "then"),
                  f"timeout {lifetime_s}"]
        self.manifest = os.path.join(self.dir, "batch.txt")
        with open(self.manifest, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.out = os.path.join(self.dir, "out")
        self.proc = None

    def ssh_base(self, port=None):
        return ["ssh", "-p", str(port or self.port), "-i", self.key, "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
                "-o", "ConnectTimeout=5"]

    def ssh_options(self):
        """--ssh-option values for xtap --remote."""
        return [f"IdentityFile={self.key}", "StrictHostKeyChecking=no", "UserKnownHostsFile=/dev/null",
                "LogLevel=ERROR"]

    def ssh(self, command, timeout=60):
        return subprocess.run(self.ssh_base() + ["root@127.0.0.1", command], capture_output=True, text=True,
                              timeout=timeout)

    def start(self):
        self.proc = subprocess.Popen([os.path.join(self.build, "cli", "xtap-vmbatch"), "--kernel", self.release,
                                      self.manifest, self.out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)

    def wait_ready(self, deadline_s=150):
        """True once ssh runs a command in the guest."""
        end = time.time() + deadline_s
        while time.time() < end:
            if self.proc.poll() is not None:
                return False
            try:
                if self.ssh("true", timeout=20).returncode == 0:
                    return True
            except subprocess.TimeoutExpired:
                pass
            time.sleep(2)
        return False

    def stop(self):
        """Asks the guest to power off; returns (vmbatch output, guest job output, problems)."""
        if self.proc is None:
            return "", "", ""
        try:
            self.ssh("touch /run/stop", timeout=20)
        except subprocess.TimeoutExpired:
            pass
        try:
            out, _ = self.proc.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate()
        read = lambda n: open(os.path.join(self.out, n)).read() if os.path.exists(os.path.join(self.out, n)) else ""
        return out, read("sshd.out") + read("sshd.err"), read("problems.txt")
