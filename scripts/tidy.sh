#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over xtap's C++, with build/compile_commands.json:
#
#   bash scripts/tidy.sh                 # the C++ files changed since main's merge base, or HEAD~1
#   bash scripts/tidy.sh --ci            # every file of translator/ and cli/ (what scripts/test.sh runs)
#   bash scripts/tidy.sh --all           # every C++ file (translator/, cli/, kbuild/, common/)
#   bash scripts/tidy.sh FILE...         # these files
#
# Files are checked TIDY_JOBS at a time (default 2). Ends with
# "tidy: N passed, N failed" (files). Needs a configured build
# (bash scripts/build.sh) and clang-tidy (Debian's clang-tidy package).
set -uo pipefail
cd "$(dirname "$0")/.."
command -v clang-tidy >/dev/null || { echo "tidy: clang-tidy is not installed"; exit 1; }
[ -f build/compile_commands.json ] || { echo "tidy: run bash scripts/build.sh first"; exit 1; }
if [ "${1:-}" = --all ]; then
  mapfile -t files < <(git ls-files -- 'translator/*.cpp' 'cli/*.cpp' 'kbuild/*.cpp' 'common/*.cpp')
elif [ "${1:-}" = --ci ]; then
  mapfile -t files < <(git ls-files -- 'translator/*.cpp' 'cli/*.cpp')
elif [ $# -gt 0 ]; then
  files=("$@")
else
  base=$(git merge-base HEAD main 2>/dev/null)
  [ -n "$base" ] && [ "$base" != "$(git rev-parse HEAD)" ] || base=HEAD~1
  mapfile -t files < <(git diff --name-only --diff-filter=AM "$base" -- \
    'translator/*.cpp' 'cli/*.cpp' 'kbuild/*.cpp' 'common/*.cpp')
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# One findings file per source file (empty: clean), named by its index.
for i in "${!files[@]}"; do echo "$i ${files[$i]}"; done |
  xargs -P "${TIDY_JOBS:-2}" -L 1 sh -c \
    'clang-tidy -p build --quiet "$1" 2>/dev/null | grep -E "^/.*: (warning|error):" > "'"$out"'/$0"'
pass=0 fail=0
for i in "${!files[@]}"; do
  if [ -s "$out/$i" ]; then
    cat "$out/$i"
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done
echo "tidy: $pass passed, $fail failed"
[ $fail = 0 ]
