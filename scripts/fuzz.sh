#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ (the fuzz preset: clang with ASan and
# UBSan, into build-fuzz/) and runs each for a bounded time, starting from the
# committed corpus. Prints each target's executions and result; exits 1 if any
# target crashed, with the input that did it.
#
#   scripts/fuzz.sh [-t SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, every target)
#
# The corpus each run grows is kept in build-fuzz/corpus/<target>/, so a later run
# goes on from it; tests/fuzz/corpus/ holds only the seeds and the inputs that once
# crashed (crash-*), which ctest replays in every build.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
if [ "${1:-}" = "-t" ]; then
  seconds=$2
  shift 2
fi
case "$seconds" in '' | *[!0-9]*) echo "fuzz.sh: -t wants whole seconds, got '$seconds'" >&2; exit 2 ;; esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(bpe-roundtrip bpe-vocabulary tokenizer-json config hf-config archive checkpoint
  safetensors zip csv email http token-file instruction-data serve-request rendezvous-store)
for target in "${targets[@]}"; do
  [ -d "tests/fuzz/corpus/$target" ] || { echo "fuzz.sh: no fuzz target '$target' (see tests/fuzz/)" >&2; exit 2; }
done

scripts/install-packages.sh clang libclang-rt-14-dev
scripts/fetch-data.sh >/dev/null || echo "fuzz.sh: some data is missing; fuzz-bpe-roundtrip needs data/gpt2/"
[ -f build-fuzz/CMakeCache.txt ] || cmake --preset fuzz
cmake --build --preset fuzz

export ASAN_OPTIONS=detect_leaks=1
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=print_stacktrace=1
crashed=0
printf '%-16s %8s %12s %10s  %s\n' target seconds executions corpus result
for target in "${targets[@]}"; do
  work=build-fuzz/corpus/$target
  crashes=build-fuzz/crashes
  mkdir -p "$work" "$crashes"
  log=build-fuzz/fuzz-$target.log
  # -timeout: an input that takes 20 s is a hang; the committed corpus is read, never written.
  if build-fuzz/bin/fuzz-"$target" -max_total_time="$seconds" -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$crashes/$target-" "$work" "tests/fuzz/corpus/$target" >"$log" 2>&1; then
    result=ok
  else
    result="CRASH: $(grep -o "$crashes/$target-[^ ]*" "$log" | tail -1) (log: $log)"
    crashed=1
  fi
  executions=$(sed -n 's/^stat::number_of_executed_units: //p' "$log")
  printf '%-16s %8s %12s %10s  %s\n' "$target" "$seconds" "${executions:-?}" "$(ls "$work" | wc -l)" "$result"
done
if [ $crashed -ne 0 ]; then
  echo "Replay a crash with build-fuzz/bin/fuzz-<target> <input>; once fixed, keep the input as"
  echo "tests/fuzz/corpus/<target>/crash-<what-it-was> so that ctest replays it from then on."
  exit 1
fi
