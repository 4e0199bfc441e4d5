#!/usr/bin/env bash
# A bounded libFuzzer run over passes 1-2 (tests/fuzz/fuzz_frontend.cpp).
#
#   bash tests/fuzz/run_fuzz.sh                 # 90 s of fuzzing (XTAP_FUZZ_SECONDS)
#   XTAP_FUZZ_SECONDS=3600 bash tests/fuzz/run_fuzz.sh
#
# Builds the target in build-fuzz/ (clang, -DXTAP_FUZZ=ON; XTAP_FUZZ_BUILD
# overrides), seeds it with every .stp of examples/, tests/ and tapsets/, and
# runs one fuzzing job with a per-input time limit of 30 s (the machine may be busy) (a hang) and
# 2 GB of memory. The working corpus lives in build-fuzz/corpus and grows
# from run to run. Every crash, hang or out-of-memory input is minimized
# into build-fuzz/findings/ and the run fails: fix the translator, then keep
# the minimized input under tests/fuzz/regressions/ (ctest fuzz_regressions
# feeds it through the same entry point in a normal build).
#
# Without clang or its libFuzzer runtime it says so and counts as skipped.
# Its last line is "fuzz: N passed, N failed" (1 passed: a run with no
# finding), followed by the executions done.
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=${XTAP_FUZZ_SECONDS:-90}
bdir=${XTAP_FUZZ_BUILD:-build-fuzz}

skip() {
  echo "fuzz: skipped: $1"
  echo "fuzz: 0 passed, 0 failed"
  exit 0
}
command -v clang++ >/dev/null && command -v clang >/dev/null || skip "clang is not installed"
fuzzer_rt=$(clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
[ -f "$fuzzer_rt" ] || fuzzer_rt=$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null | head -1)
[ -n "$fuzzer_rt" ] && [ -f "$fuzzer_rt" ] || skip "clang's libFuzzer runtime (libclang_rt.fuzzer) is missing"

echo "== fuzz: building the target in $bdir"
if [ ! -f "$bdir/build.ninja" ]; then
  cmake -S . -B "$bdir" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS="-O1 -g" -DCMAKE_CXX_FLAGS="-O1 -g" \
    -DXTAP_FUZZ=ON -DBUILD_TESTING=ON >/dev/null || { echo "fuzz: cmake failed"; echo "fuzz: 0 passed, 1 failed"; exit 1; }
fi
ninja -C "$bdir" -j"${XTAP_FUZZ_JOBS:-2}" xtap_fuzz_frontend >"$bdir/build.log" 2>&1 || {
  tail -30 "$bdir/build.log"
  echo "fuzz: the target did not build"
  echo "fuzz: 0 passed, 1 failed"
  exit 1
}

# Seeds: every script the repository has, and the inputs once found.
seeds="$bdir/seeds"
rm -rf "$seeds" "$bdir/findings" && mkdir -p "$seeds" "$bdir/corpus" "$bdir/findings"
i=0
while IFS= read -r -d '' f; do
  cp "$f" "$seeds/$(printf %05d $i).stp"
  i=$((i + 1))
done < <(find examples tests tapsets -name '*.stp' -size -64k -print0 2>/dev/null)
cp tests/fuzz/regressions/* "$seeds/" 2>/dev/null
echo "== fuzz: $i seed scripts, ${seconds} s"

log="$bdir/fuzz.log"
# -rss_limit_mb: a script that makes pass 1-2 eat gigabytes is a finding;
# -timeout: one input taking 30 s is a hang. The dictionary steers the
# mutations toward the language's words.
ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
  "$bdir/tests/fuzz/xtap_fuzz_frontend" "$bdir/corpus" "$seeds" \
  -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len=16384 \
  -dict=tests/fuzz/stap.dict -artifact_prefix="$bdir/findings/" -print_final_stats=1 \
  >"$log" 2>&1
rc=$?
execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -1)
tail -25 "$log"
found=$(ls "$bdir/findings" 2>/dev/null | grep -E '^(crash|timeout|oom|leak)-' || true)
# Inputs over 10 s are reported, not failed: on a loaded machine an
# AddressSanitizer build is slow; a real hang is a timeout (30 s).
for f in $(ls "$bdir/findings" 2>/dev/null | grep '^slow-unit-' || true); do
  echo "fuzz: slow input (over 10 s, not a failure): $bdir/findings/$f"
done
if [ $rc -ne 0 ] || [ -n "$found" ]; then
  for f in $found; do
    case $f in
      crash-* | timeout-* | oom-*)
        # Minimize each finding for the regression directory.
        "$bdir/tests/fuzz/xtap_fuzz_frontend" -minimize_crash=1 -max_total_time=30 -timeout=30 \
          -exact_artifact_path="$bdir/findings/min-$f" "$bdir/findings/$f" >/dev/null 2>&1
        echo "fuzz: finding $bdir/findings/$f (minimized: $bdir/findings/min-$f)"
        ;;
    esac
  done
  echo "fuzz: executions: ${execs:-0}"
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi
echo "fuzz: executions: ${execs:-0}, no crash, hang or out-of-memory input"
echo "fuzz: 1 passed, 0 failed"
