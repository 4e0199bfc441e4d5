#!/usr/bin/env python3
"""Bundles and signed modules in real kernels (docs/fleet.md).

Builds bundles of one script with xtap (-p4 --kernels ... -o DIR, some
signed with a throwaway key), then boots each Debian cloud kernel once and
checks in the guest that xtap-run picks that kernel's module from a bundle,
refuses a bundle without one by naming the releases it has, and loads a
signed module where signatures are not enforced. A third boot with
module.sig_enforce=1 checks that an unsigned module and one signed with a
key the kernel does not trust are both refused, each with its own remedy,
and that the kernel's own log agrees.

Prints one line per check and ends with "fleet: N passed, N failed".
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
K61 = "6.1.0-56-cloud-amd64"
K612 = "6.12.117+deb12-cloud-amd64"

# Different C for the two kernels, so the output shows which module ran.
SCRIPT = """
probe begin {
  printf("bundle module for %s ran\\n", %( kernel_v >= "6.2" %? "6.12" %: "6.1" %))
  exit()
}
"""

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"), flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def make_key(work):
    key, cert = os.path.join(work, "key.pem"), os.path.join(work, "cert.pem")
    r = run(["openssl", "req", "-new", "-nodes", "-utf8", "-sha256", "-days", "3650", "-batch", "-x509",
             "-subj", "/CN=xtap fleet test key/", "-addext", "keyUsage=digitalSignature",
             "-addext", "extendedKeyUsage=codeSigning", "-newkey", "rsa:2048", "-keyout", key, "-out", cert])
    if r.returncode:
        sys.exit(f"fleet: openssl could not make a test key: {r.stderr}")
    return key, cert


def build_bundle(xtap, script, out, kernels, extra=()):
    r = run([xtap, "-p4", "--kernels", ",".join(kernels), "-o", out, *extra, script])
    manifest = None
    if r.returncode == 0:
        with open(os.path.join(out, "manifest.json")) as f:
            manifest = json.load(f)
    return r, manifest


def guest_files(bundle, guest_dir):
    lines = []
    for dirpath, _, files in os.walk(bundle):
        for f in files:
            host = os.path.join(dirpath, f)
            lines.append(f"file {guest_dir}/{os.path.relpath(host, bundle)} {host}")
    return lines


MARKER = b"~Module signature appended~\n"


def signature_parts(ko, work):
    """Splits a module signed by sign-file into (content, RSA signature):
    the PKCS#7 blob has no signed attributes, so the RSA-2048 signature is
    over SHA-256 of the content and is the blob's last OCTET STRING."""
    b = open(ko, "rb").read()
    if not b.endswith(MARKER):
        return None
    info = b[-len(MARKER) - 12:-len(MARKER)]
    sig_len = int.from_bytes(info[8:12], "big")
    end = len(b) - len(MARKER) - 12
    p7, content = b[end - sig_len:end], b[:end - sig_len]
    if p7[-260:-256] != b"\x04\x82\x01\x00":
        return None
    return content, p7[-256:]


def verify_files(ko, cert, work):
    """Host files for tests/fleet/pkey_verify.c: the certificate in DER, the
    digest of the module's content, the signature, and a tampered digest."""
    import hashlib
    parts = signature_parts(ko, work)
    if not parts:
        return None
    content, rsa = parts
    out = {n: os.path.join(work, n) for n in ("cert.der", "digest.bin", "tampered.bin", "sig.bin", "pkey_verify")}
    run(["openssl", "x509", "-in", cert, "-outform", "DER", "-out", out["cert.der"]], check=True)
    open(out["digest.bin"], "wb").write(hashlib.sha256(content).digest())
    open(out["tampered.bin"], "wb").write(hashlib.sha256(content[:-1] + bytes([content[-1] ^ 1])).digest())
    open(out["sig.bin"], "wb").write(rsa)
    r = run(["cc", "-static", "-O2", "-o", out["pkey_verify"], os.path.join(ROOT, "tests", "fleet", "pkey_verify.c")])
    if r.returncode:
        sys.exit(f"fleet: cannot build pkey_verify: {r.stderr}")
    return out


def boot(build, release, jobs, files, append=""):
    """jobs: [(name, shell command)]; returns {name: (exit, out, err)}, kernel log."""
    with tempfile.TemporaryDirectory(prefix="xtap-fleet-") as d:
        manifest = os.path.join(d, "batch.txt")
        lines = list(files)
        if append:
            lines.append(f"append {append}")
        for name, cmd in jobs:
            lines += [f"job {name}", f"command {cmd}", "timeout 60"]
        with open(manifest, "w") as f:
            f.write("\n".join(lines) + "\n")
        out = os.path.join(d, "out")
        r = run([os.path.join(build, "cli", "xtap-vmbatch"), "--kernel", release, manifest, out])
        if r.returncode not in (0, 1):
            check(f"{release}: VM batch", False, r.stderr.strip())
            return {}, ""
        res = {}
        for name, _ in jobs:
            status = open(os.path.join(out, name + ".status")).read()
            code = int(re.search(r"exit=(-?\d+)", status).group(1))
            res[name] = (code, open(os.path.join(out, name + ".out")).read(),
                         open(os.path.join(out, name + ".err")).read())
        problems = open(os.path.join(out, "problems.txt")).read()
        check(f"{release}{' ' + append if append else ''}: clean kernel log", not problems.strip(), problems)
        return res, open(os.path.join(out, "kernel.log")).read()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory (build/)")
    args = ap.parse_args()
    xtap = os.path.join(args.build, "cli", "xtap")
    installed = [k for k in (K61, K612) if os.path.exists(f"/boot/vmlinuz-{k}") and os.path.isdir(f"/lib/modules/{k}/build")]
    if len(installed) < 2:
        print(f"fleet: needs both {K61} and {K612} with headers (scripts/bootstrap.sh installs them)")
        print("fleet: 0 passed, 1 failed")
        return 1

    with tempfile.TemporaryDirectory(prefix="xtap-fleet-") as work:
        script = os.path.join(work, "which.stp")
        with open(script, "w") as f:
            f.write(SCRIPT)
        key, cert = make_key(work)
        both, only612, signed61 = (os.path.join(work, n) for n in ("both", "only612", "signed61"))

        r, m = build_bundle(xtap, script, both, [K61, K612])
        check("bundle for two kernels builds", r.returncode == 0 and m is not None, r.stderr)
        if m:
            mods = {e["release"]: e for e in m["modules"]}
            check("manifest lists one module per kernel", sorted(mods) == sorted([K61, K612]), mods.keys())
            for rel, e in mods.items():
                ok = (e["vermagic"].startswith(rel + " ") and re.fullmatch(r"[0-9a-f]{40}", e.get("kernel_build_id", ""))
                      and e["probes"] == ["begin"] and e["signed"] is False
                      and os.path.getsize(os.path.join(both, e["file"])) == e["size"])
                check(f"manifest entry for {rel}", bool(ok), json.dumps(e))
            check("the two kernels have different build-ids",
                  len({e.get("kernel_build_id") for e in m["modules"]}) == 2)
        r, _ = build_bundle(xtap, script, only612, [K612])
        check("bundle for one kernel builds", r.returncode == 0, r.stderr)
        r, m = build_bundle(xtap, script, signed61, [K61], ["--sign-key", key, "--sign-cert", cert])
        check("signed bundle builds", r.returncode == 0 and m and m["modules"][0]["signed"] is True, r.stderr)

        # Bad input on the build side.
        r = run([xtap, "-p4", "--kernels", f"{K61},no-such-kernel", "-o", os.path.join(work, "bad"), script])
        check("an unknown kernel is named", r.returncode != 0 and "no-such-kernel" in r.stderr, r.stderr)
        r = run([xtap, "--kernels", K61, script])
        check("a bundle needs -p4 and -o", r.returncode != 0 and "add -p4" in r.stderr, r.stderr)
        r = run([xtap, "-p4", "--kernels", K61, "-o", os.path.join(work, "x"), "--sign-key", cert,
                 "--sign-cert", key, script])
        check("a swapped key and certificate are refused", r.returncode != 0 and "signing" in r.stderr, r.stderr)

        files = (guest_files(both, "/b/both") + guest_files(only612, "/b/only612")
                 + guest_files(signed61, "/b/signed61"))
        for rel, foreign in ((K61, "only612"), (K612, "signed61")):
            res, _ = boot(args.build, rel, [("pick", "xtap-run /b/both"), ("foreign", f"xtap-run /b/{foreign}"),
                                            ("signed", "xtap-run /b/signed61")], files)
            if not res:
                continue
            want = "6.12" if rel == K612 else "6.1"
            code, out, err = res["pick"]
            check(f"{rel}: xtap-run BUNDLE runs this kernel's module",
                  code == 0 and out == f"bundle module for {want} ran\n", f"exit {code}: {out!r} {err!r}")
            code, out, err = res["foreign"]
            check(f"{rel}: a bundle without this kernel is refused by name",
                  code != 0 and f"has no module for this kernel ({rel})" in err and "it has modules for" in err,
                  f"exit {code}: {err!r}")
            code, out, err = res["signed"]
            if rel == K61:
                check(f"{rel}: a signed module loads where signatures are not enforced",
                      code == 0 and out == "bundle module for 6.1 ran\n", f"exit {code}: {out!r} {err!r}")

        signed_ko = os.path.join(signed61, K61, m["module"] + ".ko") if m else ""
        vf = verify_files(signed_ko, cert, work) if m else None
        check("the signed module carries a PKCS#7 signature without signed attributes", vf is not None)
        jobs = [("unsigned", "xtap-run /b/both"), ("untrusted", "xtap-run /b/signed61")]
        if vf:
            files += [f"file /k/{n} {p}" for n, p in vf.items()]
            jobs += [("kernel_verifies", "/k/pkey_verify /k/cert.der /k/digest.bin /k/sig.bin"),
                     ("kernel_rejects_tampered", "/k/pkey_verify /k/cert.der /k/tampered.bin /k/sig.bin")]
        res, log = boot(args.build, K61, jobs, files, append="module.sig_enforce=1")
        if res:
            code, out, err = res["unsigned"]
            check("sig_enforce: an unsigned module is refused with the remedy",
                  code != 0 and "is not signed" in err and "--sign-key" in err, f"exit {code}: {err!r}")
            code, out, err = res["untrusted"]
            check("sig_enforce: a module signed with an untrusted key is refused with the remedy",
                  code != 0 and "does not trust the key" in err and "mokutil" in err, f"exit {code}: {err!r}")
            check("sig_enforce: the kernel's own log names both refusals",
                  "Loading of unsigned module is rejected" in log
                  and "Loading of module with unavailable key is rejected" in log, log[-2000:])
            if vf:
                code, out, err = res["kernel_verifies"]
                check("the kernel's public-key code verifies the module's signature with the certificate",
                      code == 0 and out.strip() == "verified", f"exit {code}: {out!r} {err!r}")
                code, out, err = res["kernel_rejects_tampered"]
                check("... and rejects it for a module changed by one bit",
                      code == 1 and out.startswith("rejected:"), f"exit {code}: {out!r} {err!r}")

    passed = sum(results)
    print(f"fleet: {passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
