#!/usr/bin/env bash
# Install every build and test dependency of xtap from Debian's archive.
# Idempotent: packages already present are skipped without touching apt.
set -euo pipefail

pkgs=(
  build-essential cmake ninja-build pkg-config
  libdw-dev libelf-dev libcli11-dev libgtest-dev
  libclang-cpp14-dev libclang-14-dev llvm-14-dev clang-14
  clang-format-14 clang-format  # scripts/format.sh: the formatting check of scripts/test.sh
  qemu-system-x86 busybox-static cpio kmod gzip
  libbpf-dev lz4 zstd pahole  # BTF: libbpf reads it; vmlinuz payloads are LZ4 (6.1) or ZSTD (6.12); pahole makes the test fixture
  openssh-client dropbear-bin ansible  # xtap --remote uses ssh; the remote tests run dropbear in the VM and the Ansible playbook
  openssl  # signed bundles: the kernel's sign-file needs libcrypto; the fleet tests make a test key
  systemtap-doc  # the example corpus that tests/corpus runs (examples only, not stap)
  systemtap-sdt-dev  # sys/sdt.h: the USDT workload of tests/runtime/uprobe (usdt_n.c)
  lintian  # judges the .deb in tests/package (no error or warning)
  chromium chromium-driver python3-selenium  # tests/flamegraph/browser_test.py: the flame graph in a real browser
  prometheus  # tests/prometheus: a real Prometheus scrapes xtap-run --prometheus (run by the test, not as a service)
  libncurses-dev  # --monitor's view: libncursesw.a and libtinfo.a, linked into the static xtap-run
  tmux  # tests/monitor: xtap --vm --monitor driven and read under tmux
  nodejs  # runs the flame graph SVG's own script in a unit test (tests/unit/flamegraph_script_check.js)
  linux-image-cloud-amd64 linux-headers-cloud-amd64
  linux-image-6.12-cloud-amd64 linux-headers-6.12-cloud-amd64
)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
    || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The DWARF debuginfo of the 6.1 cloud kernel (kernel.function("f@file"),
# statements, module functions: tests/runtime/dwarf). 318 MB download, 1.7 GB
# installed; XTAP_NO_DEBUGINFO=1 skips it (those tests are then skipped).
if [ -z "${XTAP_NO_DEBUGINFO:-}" ]; then
  for k in /boot/vmlinuz-6.1.*-cloud-amd64; do
    [ -e "$k" ] || continue
    dbg="linux-image-${k#/boot/vmlinuz-}-dbg"
    if ! dpkg-query -W -f='${Status}' "$dbg" 2>/dev/null | grep -q 'install ok installed'; then
      echo "bootstrap: installing $dbg"
      SUDO=""
      [ "$(id -u)" = 0 ] || SUDO=sudo
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "$dbg"
    fi
  done
fi

# The cloud kernel image is only readable by root on Debian; the VM runner
# needs to read it.
for k in /boot/vmlinuz-*-cloud-amd64; do
  [ -e "$k" ] && [ ! -r "$k" ] && chmod a+r "$k" 2>/dev/null || true
done
exit 0
