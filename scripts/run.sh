#!/usr/bin/env bash
# The main job on a fresh machine: install, build, and run a script
# (default: examples/hello.stp). It runs in the local kernel when that can
# load modules, otherwise in a throwaway VM of the installed Debian kernel.
#   bash scripts/run.sh [SCRIPT] [xtap options...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
script=${1:-examples/hello.stp}
shift || true
vm=()
if [ ! -e /proc/modules ] || [ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null || echo 0)" = 1 ] \
   || [ ! -d "/lib/modules/$(uname -r)/build" ]; then
  vm=(--vm)
fi
exec build/cli/xtap "${vm[@]}" "$script" "$@"
