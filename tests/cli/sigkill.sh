#!/usr/bin/env bash
# SIGKILL at random points of a training run, several times, every other time while a
# checkpoint is being written. After each kill the last complete checkpoint must load,
# and the run resumes from it (or starts over when none was written yet). At the end,
# the recorded evaluation losses must equal those of the same run left alone, bit for
# bit (metrics.jsonl holds them at round-trip precision), and no temporary file of a
# killed write may be left.
#
#   sigkill.sh BIN_DIR WORK_DIR [KILLS] [SEED]
#
# SEED picks the random kill times (default: a new one, printed, so a failure can be
# replayed).
set -uo pipefail
bin="$1" dir="$2" kills="${3:-4}" seed="${4:-$RANDOM}"
source "$(dirname "$0")/common.sh"
require_data the-verdict.txt gpt2/encoder.json gpt2/vocab.bpe
fail() { echo "FAILED (seed $seed): $*"; tail -5 "$dir"/*.log 2>/dev/null; exit 1; }
scratch_dir "$dir"
RANDOM="$seed"

# A checkpoint after every step, so that kills land between, before and inside writes.
settings=(--config configs/tiny.json --max-steps 24 --eval-freq 2 --checkpoint-every 1 --no-plot --progress never)
"$bin/ch05-02-train" "${settings[@]}" --out-dir "$dir/alone" >"$dir/alone.log" 2>&1 || fail "the reference run failed"

run="$dir/killed" checkpoint="$dir/killed/checkpoint.pt"
start() {
  if [ -f "$checkpoint" ]; then
    "$bin/ch05-02-train" --resume "$checkpoint" --no-plot --progress never >>"$dir/killed.log" 2>&1 &
  else
    "$bin/ch05-02-train" "${settings[@]}" --out-dir "$run" >>"$dir/killed.log" 2>&1 &
  fi
  pid=$!
}

# Waits until the running process has renamed a new checkpoint into place (a new
# inode), so that every kill comes after some progress and every restart resumes.
new_checkpoint() {
  for _ in $(seq 6000); do
    [ "$(stat -c %i "$checkpoint" 2>/dev/null)" != "$1" ] && [ -f "$checkpoint" ] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.01
  done
  return 1
}

in_write=0
for i in $(seq "$kills"); do
  before="$(stat -c %i "$checkpoint" 2>/dev/null || echo none)"
  start
  new_checkpoint "$before" || fail "run $i wrote no checkpoint: $(tail -3 "$dir/killed.log")"
  if ((i % 2 == 0)); then
    # Wait for the next checkpoint's temporary file to appear, then kill at once.
    for _ in $(seq 3000); do
      compgen -G "$run/.checkpoint.pt.*" >/dev/null && break
      sleep 0.002
    done
  else
    sleep "0.$((RANDOM % 10))"  # 0.0 to 0.9 s after a checkpoint
  fi
  writing=0
  compgen -G "$run/.checkpoint.pt.*" >/dev/null && writing=1
  kill -KILL "$pid" 2>/dev/null || fail "run $i ended before its kill; use more --max-steps"
  wait "$pid" 2>/dev/null
  in_write=$((in_write + writing))
  "$bin/generate" --checkpoint "$checkpoint" --max-new-tokens 1 >/dev/null 2>"$dir/load.err" ||
    fail "kill $i left a checkpoint that does not load: $(cat "$dir/load.err")"
done
start
wait "$pid" || fail "the last resume failed"

leftovers="$(compgen -G "$run/.*.??????")" && fail "temporary files of killed writes were left: $leftovers"
cmp -s "$dir/alone/metrics.jsonl" "$run/metrics.jsonl" ||
  fail "the losses differ from the uninterrupted run's: $(diff "$dir/alone/metrics.jsonl" "$run/metrics.jsonl" | head -4)"
((in_write > 0)) || fail "no kill landed during a checkpoint write"
echo "seed $seed: $kills SIGKILLs, $in_write of them during a checkpoint write, each followed by --resume from" \
  "the checkpoint it left; the $(wc -l <"$run/metrics.jsonl") evaluations equal the uninterrupted run's: OK"
