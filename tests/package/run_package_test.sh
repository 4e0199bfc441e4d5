#!/usr/bin/env bash
# The .deb end to end (issue 13): build it with cpack from an existing build
# tree, install it with apt (dependencies resolved from the archive; a
# reinstall over an older xtap is fine), then, from a directory outside the
# source tree and with a fresh cache, check the installed xtap: --version,
# its man pages, its bash completion, a script elaborated with the installed
# tapsets, a tracepoint listed by the installed catalog tool, a missing data
# directory reported, and one script run in a VM (--vm, one boot, its output
# streamed: vm_stream_check.py). lintian judges the .deb on the way. Needs
# root (apt) and a built ./build.
# Ends with "package: N passed, N failed" (scripts/test.sh counts it).
#
#   bash tests/package/run_package_test.sh [BUILD_DIR]
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd) || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS  $1"; }
bad() { fail=$((fail + 1)); echo "FAIL  $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | tail -n 20 | sed 's/^/      /'; }
finish() { echo "package: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
work=$(mktemp -d /tmp/xtap-package.XXXXXX)
trap 'rm -rf "$work"' EXIT

# 1. The package, from the build tree as it is (scripts/build.sh built it).
version=$(sed -nE 's/^CMAKE_PROJECT_VERSION:STATIC=(.*)/\1/p' "$build/CMakeCache.txt")
if out=$(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb" 2>&1) &&
   deb=$(ls "$work"/deb/xtap_"$version"_*.deb 2>/dev/null) && [ -n "$deb" ]; then
  ok "cpack built $(basename "$deb")"
else
  bad "cpack -G DEB" "$out"
  finish
fi

# 2. Its control fields and files.
fields=$(dpkg-deb -f "$deb" Package Version Depends Recommends Suggests Section)
missing=""
for want in "Package: xtap" "Version: $version" "libbpf1" "libclang-cpp14" "libllvm14" "binutils" \
            "Recommends: gcc, make" "qemu-system-x86" "busybox-static" "Section: devel"; do
  grep -qF -- "$want" <<<"$fields" || missing+=" '$want'"
done
[ -z "$missing" ] && ok "control fields" || bad "control fields lack$missing" "$fields"
files=$(dpkg-deb -c "$deb" | awk '{print $NF}')
missing=""
for want in ./usr/bin/xtap ./usr/bin/xtap-run ./usr/libexec/xtap/xtap-kcatalog \
            ./usr/share/xtap/tapsets/context.stp ./usr/share/xtap/runtime-kmod/include/xtap/runtime.h \
            ./usr/share/xtap/kbuild/features/ ./usr/share/man/man1/xtap.1.gz ./usr/share/man/man8/xtap-run.8.gz \
            ./usr/share/man/man7/xtapprobes.7.gz ./usr/share/bash-completion/completions/xtap \
            ./usr/share/bash-completion/completions/xtap-run ./usr/share/doc/xtap/copyright \
            ./usr/share/doc/xtap/docs/from-systemtap.md ./usr/share/doc/xtap/examples/hello.stp \
            ./usr/share/doc/xtap/changelog.gz ./usr/share/lintian/overrides/xtap; do
  grep -qxF -- "$want" <<<"$files" || missing+=" $want"
done
[ -z "$missing" ] && ok "package contents" || bad "package lacks$missing"

# 2b. lintian, as Debian's archive would judge the package: no error and no
# warning. What xtap does on purpose is overridden in the package itself
# (packaging/lintian/xtap, each override with its reason), so a new tag
# fails here until it is fixed or explained there.
if command -v lintian >/dev/null; then
  out=$(lintian --fail-on error,warning "$deb" 2>&1) && rc=0 || rc=$?
  if [ "$rc" -eq 0 ] && ! grep -qE '^[EW]: ' <<<"$out"; then
    ok "lintian: no error or warning"
  else
    bad "lintian" "$out"
  fi
else
  bad "lintian is not installed (scripts/bootstrap.sh installs it)"
fi

# 2c. The programs' hardening (the top CMakeLists.txt; what lintian's
# hardening-* tags and blhc look for, checked directly): the dynamic
# programs bound at load (BIND_NOW) with read-only relocations
# (GNU_RELRO), calling the stack protector and fortified libc functions
# (__*_chk); the static xtap-run has its relocations read-only too.
mkdir -p "$work/x" && dpkg-deb -x "$deb" "$work/x"
hard=""
for p in usr/bin/xtap usr/libexec/xtap/xtap-kcatalog; do
  f="$work/x/$p"
  readelf -lW "$f" | grep -q GNU_RELRO || hard+=" $p:no-relro"
  readelf -dW "$f" | grep -qE 'BIND_NOW|FLAGS_1.*NOW' || hard+=" $p:no-bindnow"
  syms=$(readelf --dyn-syms -W "$f")
  grep -q '__stack_chk_fail' <<<"$syms" || hard+=" $p:no-stack-protector"
  # xtap's own snprintf calls into stack buffers are fortified for sure;
  # xtap-kcatalog may have no call the compiler can check.
  [ "$p" != usr/bin/xtap ] || grep -qE '__[a-z_]+_chk@' <<<"$syms" || hard+=" $p:no-fortify"
done
readelf -lW "$work/x/usr/bin/xtap-run" | grep -q GNU_RELRO || hard+=" usr/bin/xtap-run:no-relro"
[ -z "$hard" ] && ok "hardening: relro, bind-now, stack protector, fortify" || bad "hardening:$hard"

# 3. Install it. --reinstall: the same version built again replaces the
# files; --allow-downgrades: an older package over a newer one is fine too;
# the lock timeout waits for another apt or dpkg run to end.
if out=$(DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 \
           --reinstall --allow-downgrades "$deb" 2>&1) &&
   [ "$(dpkg-query -W -f='${Version}' xtap 2>/dev/null)" = "$version" ]; then
  ok "apt-get install $(basename "$deb")"
else
  bad "apt-get install" "$out"
  finish
fi

# 4. The installed xtap, run from outside the source tree, with nothing of
# the build's environment: a fresh cache, no XTAP_* overrides.
cd "$work" || finish
export XTAP_CACHE_DIR=$work/cache
unset XTAP_DATADIR XTAP_KCATALOG XTAP_KBUILD
xtap=/usr/bin/xtap

out=$("$xtap" --version 2>&1)
[ "$out" = "$version" ] || [[ $out == *" $version" ]] && ok "xtap --version: $out" || bad "xtap --version" "$out"

missing=""
for page in "1 xtap" "8 xtap-run" "7 xtapprobes"; do
  p=$(man -w $page 2>/dev/null) && [[ $p == /usr/share/man/* ]] || missing+=" $page"
done
[ -z "$missing" ] && ok "man -w xtap, xtap-run(8), xtapprobes(7)" || bad "man pages not found:$missing"

# The completion as bash-completion loads it: options from `xtap --help`,
# probe families after -l.
out=$(bash -c '
  source /usr/share/bash-completion/completions/xtap
  COMP_WORDS=(xtap --ve); COMP_CWORD=1; COMP_LINE="xtap --ve"; COMP_POINT=${#COMP_LINE}
  _xtap; echo "${COMPREPLY[*]}"
  COMP_WORDS=(xtap -l sched); COMP_CWORD=2; COMP_LINE="xtap -l sched"; COMP_POINT=${#COMP_LINE}
  _xtap; echo "${COMPREPLY[*]}"' 2>&1)
if [ "$out" = $'--version\nscheduler.' ]; then
  ok "bash completion (--ve, -l sched)"
else
  bad "bash completion" "$out"
fi

# Pass 2 reads the installed tapsets (ppid() and execname() are in them).
out=$("$xtap" -p2 -e 'probe begin { printf("%d %s\n", ppid(), execname()) }' 2>&1)
[ $? -eq 0 ] && grep -q '^begin' <<<"$out" && ok "xtap -p2 with the installed tapsets" ||
  bad "xtap -p2 with the installed tapsets" "$out"

# -L runs the installed catalog tool (/usr/libexec/xtap/xtap-kcatalog) on a
# kernel's headers: any installed cloud kernel's.
release=$(ls -d /lib/modules/*-cloud-amd64/build 2>/dev/null | head -n 1 | cut -d/ -f4)
if [ -n "$release" ]; then
  out=$("$xtap" -r "$release" -L 'kernel.trace("sched:sched_switch")' 2>&1)
  [ $? -eq 0 ] && grep -q '^kernel.trace("sched:sched_switch") .*\$next:struct task_struct\*' <<<"$out" &&
    ok "xtap -L with the installed xtap-kcatalog ($release)" || bad "xtap -r $release -L" "$out"
else
  bad "xtap -L: no cloud kernel headers installed"
fi

# An explicit data directory wins, and a bad one is reported, not worked around.
out=$(XTAP_DATADIR=$work/nowhere "$xtap" -p2 -e 'probe begin { exit() }' 2>&1)
[ $? -ne 0 ] && grep -q "$work/nowhere/tapsets" <<<"$out" && ok "XTAP_DATADIR overrides the data directory" ||
  bad "XTAP_DATADIR=$work/nowhere" "$out"

# One VM boot: build the runtime from /usr/share/xtap/runtime-kmod in the
# fresh cache, build the module, run it with the installed xtap-run; its
# output must stream (a line every 100 ms for 6 s, the first one seconds
# before xtap ends: issue 29).
out=$(timeout 900 python3 "$repo/tests/package/vm_stream_check.py" "$xtap" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
  ok "xtap --vm from $work, output streamed: $(tail -n 1 <<<"$out")"
else
  bad "xtap --vm (exit $rc)" "$out"
fi
finish
