#!/usr/bin/env bash
# A run stopped after STOP steps and resumed to STEPS ends where the run that was not
# stopped ends: the same weights and losses (their --save-outputs archives equal).
# Whether the uninterrupted run equals the lesson's PyTorch is the compare test's check,
# with the same flags.
#
#   resume_equals_whole.sh EXE PYTHON WORK_DIR STOP STEPS FLAG...
set -uo pipefail
exe="$1" python="$2" work="$3" stop="$4" steps="$5"
shift 5
source "$(dirname "$0")/common.sh"
require_data_of "$exe"
fresh_dir "$work"

"$exe" "$@" --max-steps "$steps" --out-dir "$work/whole" --save-outputs "$work/whole.pt" >"$work/whole.log" ||
  fail "the uninterrupted run exited $?: $(tail -3 "$work/whole.log")"
"$exe" "$@" --max-steps "$stop" --out-dir "$work/part" >"$work/part.log" ||
  fail "the first part exited $?: $(tail -3 "$work/part.log")"
grep -q "^Checkpoint: $work/part/checkpoint.pt$" "$work/part.log" ||
  fail "no checkpoint line after step $stop: $(tail -5 "$work/part.log")"
"$exe" --resume "$work/part/checkpoint.pt" --max-steps "$steps" --save-outputs "$work/resumed.pt" \
  >"$work/resumed.log" || fail "--resume exited $?: $(tail -3 "$work/resumed.log")"
grep -q "^Resuming at step $stop" "$work/resumed.log" || fail "no resume line: $(head -12 "$work/resumed.log")"
same_outputs "$python" "$work/whole.pt" "$work/resumed.pt" || fail "the resumed run differs from the uninterrupted one"
echo "OK: stopped after step $stop and resumed to step $steps, the run ends as the uninterrupted one"
