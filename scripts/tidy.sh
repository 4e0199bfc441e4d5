#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over xtap's C++, with build/compile_commands.json:
#
#   bash scripts/tidy.sh                 # the C++ files changed since main's merge base, or HEAD~1
#   bash scripts/tidy.sh --all           # every C++ file (about 10 minutes on 2 cores)
#   bash scripts/tidy.sh FILE...         # these files
#
# Ends with "tidy: N passed, N failed" (files). Needs a configured build
# (bash scripts/build.sh) and clang-tidy (Debian's clang-tidy package).
set -uo pipefail
cd "$(dirname "$0")/.."
command -v clang-tidy >/dev/null || { echo "tidy: clang-tidy is not installed"; exit 1; }
[ -f build/compile_commands.json ] || { echo "tidy: run bash scripts/build.sh first"; exit 1; }
if [ "${1:-}" = --all ]; then
  mapfile -t files < <(git ls-files -- 'translator/*.cpp' 'cli/*.cpp' 'kbuild/*.cpp' 'common/*.cpp')
elif [ $# -gt 0 ]; then
  files=("$@")
else
  base=$(git merge-base HEAD main 2>/dev/null)
  [ -n "$base" ] && [ "$base" != "$(git rev-parse HEAD)" ] || base=HEAD~1
  mapfile -t files < <(git diff --name-only --diff-filter=AM "$base" -- \
    'translator/*.cpp' 'cli/*.cpp' 'kbuild/*.cpp' 'common/*.cpp')
fi
pass=0 fail=0
for f in "${files[@]}"; do
  out=$(clang-tidy -p build --quiet "$f" 2>/dev/null | grep -E "^/.*: (warning|error):")
  if [ -z "$out" ]; then
    pass=$((pass + 1))
  else
    echo "$out"
    fail=$((fail + 1))
  fi
done
echo "tidy: $pass passed, $fail failed"
[ $fail = 0 ]
