#!/usr/bin/env bash
# A signal during training stops it at a step boundary with a checkpoint, and the run
# continues from that checkpoint.
#
#   interrupt.sh BIN_DIR SIGNAL WORK_DIR
#
# Trains the tiny model, sends SIGNAL (INT or TERM) once a few steps are done, and
# checks the exit code (128 + the signal), the one-line notice, and a resume.
set -uo pipefail
bin="$1" signal="$2" dir="$3"
source "$(dirname "$0")/common.sh"
require_data the-verdict.txt gpt2/encoder.json gpt2/vocab.bpe
fail() { echo "FAILED: $*"; cat "$dir/train.log" "$dir/train.err" 2>/dev/null; exit 1; }
scratch_dir "$dir"

"$bin/ch05-02-train" --config configs/tiny.json --num-epochs 100 --eval-freq 1 --out-dir "$dir/run" --no-plot \
  >"$dir/train.log" 2>"$dir/train.err" &
pid=$!
for _ in $(seq 600); do
  grep -q "Step 000003" "$dir/train.log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill "-$signal" "$pid"
wait "$pid"
status=$?
case "$signal" in INT) expected=130 ;; TERM) expected=143 ;; *) fail "unknown signal $signal" ;; esac
[ "$status" -eq "$expected" ] || fail "exit code $status, expected $expected"
[ "$(wc -l <"$dir/train.err")" -eq 1 ] || fail "expected one line on stderr"
grep -Eq "stopped by SIG$signal.* after step [0-9]+; continue with --resume $dir/run/checkpoint.pt" "$dir/train.err" ||
  fail "no notice of the stop"
step="$(sed -E 's/.*after step ([0-9]+).*/\1/' "$dir/train.err")"

"$bin/ch05-02-train" --resume "$dir/run/checkpoint.pt" --max-steps $((step + 2)) --no-plot >"$dir/resume.log" 2>&1 ||
  fail "the resume failed: $(cat "$dir/resume.log")"
grep -q "Resuming at step $step " "$dir/resume.log" || fail "the resume did not start at step $step"
grep -q "Step $(printf %06d $((step + 1)))" "$dir/resume.log" || fail "the resumed run did not go on"
echo "stopped by SIG$signal after step $step with exit code $status; resumed from there: OK"
