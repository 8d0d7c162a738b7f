#!/usr/bin/env bash
# A stop request during the end-of-epoch sample is heard: Ctrl-C while the run
# generates a 100,000,000-token sample ends it within seconds, with a checkpoint.
#
#   stop_in_sample.sh BIN_DIR WORK_DIR
set -uo pipefail
bin="$1" dir="$2"
source "$(dirname "$0")/common.sh"
require_data the-verdict.txt gpt2/encoder.json gpt2/vocab.bpe
fail() { echo "FAILED: $*"; cat "$dir/train.log" "$dir/train.err" 2>/dev/null; exit 1; }
scratch_dir "$dir"

"$bin/ch05-02-train" --config configs/tiny.json --num-epochs 2 --eval-freq 1000 --max-new-tokens 100000000 \
  --out-dir "$dir/run" --no-plot --progress never >"$dir/train.log" 2>"$dir/train.err" &
pid=$!
# The first epoch of the tiny model takes a few seconds; then the sample runs "forever".
sleep 20
kill -0 "$pid" 2>/dev/null || fail "the run ended before the signal"
kill -INT "$pid"
sent=$(date +%s)
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
  kill -KILL "$pid"
  fail "the run still sampled 30 s after Ctrl-C"
fi
wait "$pid"
status=$?
took=$(($(date +%s) - sent))
[ "$status" -eq 130 ] || fail "exit code $status, expected 130"
grep -q "Ep 2" "$dir/train.log" && fail "the second epoch started: the signal did not come during the first sample"
[ -f "$dir/run/checkpoint.pt" ] || fail "no checkpoint"
grep -q "stopped by SIGINT" "$dir/train.err" || fail "no notice of the stop"
echo "Ctrl-C during the sample: exit 130 after ${took} s, checkpoint written: OK"
