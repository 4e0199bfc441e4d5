#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the tree moved elsewhere:
# the installed xtap must find its tapsets and xtap-kcatalog relative to
# itself (common/install_paths.h), not through the prefix or the source tree.
# No root, no VM, a few seconds (ctest: package_relocated_install).
#   bash tests/package/relocated_install_test.sh BUILD_DIR
set -euo pipefail
build=$1
work=$(mktemp -d /tmp/xtap-relocate.XXXXXX)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/first" >/dev/null
mv "$work/first" "$work/moved"
cd "$work"
xtap=$work/moved/bin/xtap
unset XTAP_DATADIR XTAP_KCATALOG
# execname() comes from the installed tapsets; without them pass 2 fails.
out=$("$xtap" -p2 -e 'probe begin { println(execname()) }' 2>&1) || { echo "$out"; exit 1; }
grep -q '^execname:string' <<<"$out" || { echo "no tapset function in: $out"; exit 1; }
[ -x "$work/moved/libexec/xtap/xtap-kcatalog" ] && [ -x "$work/moved/bin/xtap-run" ]
# A data directory that is not there is reported with its path.
rm -rf "$work/moved/share/xtap/tapsets"
if out=$("$xtap" -p2 -e 'probe begin { exit() }' 2>&1); then
  echo "ran without its tapsets"; exit 1
fi
grep -qF "$work/moved/share/xtap/tapsets" <<<"$out" || { echo "unexpected: $out"; exit 1; }
echo "relocated install: ok"
