#!/usr/bin/env bash
# The uninterrupted run of STEPS steps equals the lesson's PyTorch (compare.py on its
# --save-outputs archive), and a run stopped after STOP steps and resumed to STEPS
# ends where it ends: the same weights and losses (their archives equal).
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
"$python" scripts/reference/compare.py "$work/whole.pt" || fail "compare.py on the uninterrupted run"
"$exe" "$@" --max-steps "$stop" --out-dir "$work/part" >"$work/part.log" ||
  fail "the first part exited $?: $(tail -3 "$work/part.log")"
grep -q "^Checkpoint: $work/part/checkpoint.pt$" "$work/part.log" ||
  fail "no checkpoint line after step $stop: $(tail -5 "$work/part.log")"
"$exe" --resume "$work/part/checkpoint.pt" --max-steps "$steps" --save-outputs "$work/resumed.pt" \
  >"$work/resumed.log" || fail "--resume exited $?: $(tail -3 "$work/resumed.log")"
grep -q "^Resuming at step $stop" "$work/resumed.log" || fail "no resume line: $(head -12 "$work/resumed.log")"
same_outputs "$python" "$work/whole.pt" "$work/resumed.pt" || fail "the resumed run differs from the uninterrupted one"
echo "OK: the run equals the lesson's PyTorch, and stopped after step $stop and resumed to step $steps it ends the same"
