#!/usr/bin/env bash
# The main job on a fresh machine: install, build, and run a script. By
# default examples/topsyscalls.stp, while a small shell workload runs
# (listings, reads and pipes): the system calls of each of its programs.
# It runs in the local kernel when that can load modules, otherwise in a
# throwaway VM of the installed Debian kernel.
#   bash scripts/run.sh [SCRIPT] [xtap options...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
# The default workload; tests/runtime/examples/topsyscalls.test runs the same.
workload='i=0; while [ $i -lt 20 ]; do ls -l / | wc -l > /dev/null; grep -c processor /proc/cpuinfo > /dev/null; i=$((i+1)); done'
if [ $# -eq 0 ]; then
  set -- examples/topsyscalls.stp -c "sh -c '$workload'"
fi
script=$1
shift
vm=()
if [ ! -e /proc/modules ] || [ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null || echo 0)" = 1 ] \
   || [ ! -d "/lib/modules/$(uname -r)/build" ]; then
  vm=(--vm)
fi
exec build/cli/xtap "${vm[@]}" "$script" "$@"
