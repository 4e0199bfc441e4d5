#!/usr/bin/env bash
# A bounded run of the generative fuzzer (tests/fuzz/fuzz_gen.cpp, issue 26):
# a fixed range of seeds through passes 1-3 in process (no crash, pass 1's
# printer a fixed point), then one batch of the scripts pass 2 accepted,
# joined into one module, built at -p4 for the 6.1 kernel with no C error
# or warning (scripts/p4_check.py).
#
#   bash tests/fuzz/run_fuzz_gen.sh
#   XTAP_FUZZ_GEN_SEED=1000000 XTAP_FUZZ_GEN_COUNT=1000000 bash tests/fuzz/run_fuzz_gen.sh
#
# XTAP_FUZZ_GEN_BIN: the generator (build/tests/fuzz/xtap_fuzz_gen; the
# sanitizer build is build-fuzz/tests/fuzz/xtap_fuzz_gen), XTAP_FUZZ_GEN_P4:
# how many scripts go into the -p4 module (0: none), XTAP_FUZZ_GEN_P4_SEED:
# the first seed tried for it. Without the kernel's headers the -p4 step
# says so and counts nothing. Last line: "fuzz-gen: N passed, N failed"
# (one for passes 1-3, one for -p4).
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${XTAP_FUZZ_GEN_BIN:-build/tests/fuzz/xtap_fuzz_gen}
seed=${XTAP_FUZZ_GEN_SEED:-1}
count=${XTAP_FUZZ_GEN_COUNT:-2000}
p4=${XTAP_FUZZ_GEN_P4:-40}
p4_seed=${XTAP_FUZZ_GEN_P4_SEED:-500000000}
release=${XTAP_FUZZ_GEN_RELEASE:-6.1.0-56-cloud-amd64}
passed=0 failed=0

[ -x "$bin" ] || { echo "fuzz-gen: $bin is not built"; echo "fuzz-gen: 0 passed, 1 failed"; exit 1; }
echo "== fuzz-gen: seeds $seed..$((seed + count - 1)) through passes 1-3"
# A crash prints "crash seed N" (xtap_fuzz_gen --print N writes that script).
ASAN_OPTIONS=detect_leaks=0 "$bin" --seed "$seed" --count "$count" --tapsets-every 16
if [ $? -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi

if [ "$p4" -gt 0 ]; then
  if [ ! -e "/lib/modules/$release/build/Makefile" ]; then
    echo "fuzz-gen: no headers for $release: the -p4 batch is skipped"
  else
    dir=$(mktemp -d)
    # Accepted scripts, named apart (z<seed>_), $p4 to the module.
    "$bin" --seed "$p4_seed" --count $((p4 * 2)) --tapsets-every 4 --emit "$dir" --batch "$p4" >/dev/null
    find "$dir" -name 'batch*.stp' ! -name batch0.stp -delete
    echo "== fuzz-gen: $(grep -c '^# seed' "$dir/batch0.stp") accepted scripts in one module at -p4"
    if python3 scripts/p4_check.py --public "$dir" -r "$release" -j 1 -v; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      cp "$dir/batch0.stp" build/fuzz_gen_p4_failure.stp 2>/dev/null &&
        echo "fuzz-gen: the module's script is in build/fuzz_gen_p4_failure.stp"
    fi
    rm -rf "$dir"
  fi
fi
echo "fuzz-gen: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
