#!/usr/bin/env bash
# clang-format over xtap's own C and C++ (docs/style.md):
#
#   bash scripts/format.sh          # check: one line per file that would change
#   bash scripts/format.sh --fix    # format those files in place
#
# The C++ follows .clang-format (Google, 100 columns), runtime-kmod/ its own
# file (the kernel's style); clang-format picks the nearest one. Test inputs
# whose line numbers tests name (tests/runtime/ workloads and helpers,
# bench/workloads/) are not formatted. Ends with
# "format: N passed, N failed" (files).
set -uo pipefail
cd "$(dirname "$0")/.."
fix=0
[ "${1:-}" = --fix ] && fix=1
command -v clang-format >/dev/null || { echo "format: clang-format is not installed (bash scripts/bootstrap.sh)"; exit 1; }

mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cpp' '*.cc' \
  ':!:tests/runtime/**' ':!:bench/workloads/**')
pass=0 fail=0
for f in "${files[@]}"; do
  if clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
    pass=$((pass + 1))
  elif [ $fix = 1 ]; then
    clang-format -i "$f" && pass=$((pass + 1))
  else
    echo "format: $f needs clang-format (bash scripts/format.sh --fix)"
    fail=$((fail + 1))
  fi
done
echo "format: $pass passed, $fail failed"
[ $fail = 0 ]
