#!/usr/bin/env bash
# scripts/launch.sh stops a run as a whole, as torchrun does:
#  1. when one rank fails, the launcher stops the others (SIGTERM, then SIGKILL after
#     --grace) and exits with the failed rank's status;
#  2. when the launcher itself is killed (SIGKILL), the ranks get SIGTERM from the
#     kernel and stop at a step boundary, rank 0 with a checkpoint.
#
#   launcher.sh BIN_DIR WORK_DIR
set -uo pipefail
bin="$1" dir="$2"
source "$(dirname "$0")/common.sh"
require_data the-verdict.txt gpt2/encoder.json gpt2/vocab.bpe
scratch_dir "$dir"
marker="llm-launcher-test-$$"

# 1. Rank 1 fails after a second; ranks 0 and 2 would sleep for 100 s, and rank 2
# ignores SIGTERM, so only the SIGKILL after the grace period ends it.
start=$(date +%s)
scripts/launch.sh -n 3 --grace 2 bash -c "
  case \$RANK in
    1) sleep 1; exit 3 ;;
    2) trap '' TERM; exec -a $marker sleep 100 ;;
    *) exec -a $marker sleep 100 ;;
  esac" 2>"$dir/fail.err"
code=$? took=$(($(date +%s) - start))
[ $code -eq 3 ] || fail "the launcher exited with $code when rank 1 exited with 3"
grep -q "^launch.sh: rank 1 exited with status 3; stopping the other ranks$" "$dir/fail.err" ||
  fail "no line naming the failed rank: $(cat "$dir/fail.err")"
[ $took -le 10 ] || fail "the launcher took $took s to stop the others"
sleep 0.5
if pgrep -f "$marker" >/dev/null; then pkill -KILL -f "$marker"; fail "a rank outlived the launcher"; fi
echo "rank 1 failed: the launcher stopped the others and exited $code after $took s"

# 2. The launcher is killed while two ranks train.
# (Killed, the launcher cannot remove its rendezvous folder: it goes under the test's.)
TMPDIR="$dir" scripts/launch.sh -n 2 --master-port $((20000 + RANDOM % 20000)) "$bin/ch05-02-train" --config configs/tiny.json \
  --num-epochs 1000 --no-plot --progress never --dist-timeout 30 --out-dir "$dir/run" >"$dir/run.log" 2>&1 &
launcher=$!
for _ in $(seq 600); do grep -q "^Ep 1 " "$dir/run.log" 2>/dev/null && break; sleep 0.1; done
grep -q "^Ep 1 " "$dir/run.log" || { kill -TERM $launcher; fail "training did not start: $(tail -3 "$dir/run.log")"; }
kill -KILL $launcher
killed=$(date +%s)
wait $launcher 2>/dev/null
for _ in $(seq 300); do pgrep -f -- "--out-dir $dir/run" >/dev/null || break; sleep 0.1; done
if pgrep -f -- "--out-dir $dir/run" >/dev/null; then
  pkill -KILL -f -- "--out-dir $dir/run"
  fail "the ranks ran on for 30 s after the launcher was killed"
fi
grep -q "^Checkpoint: $dir/run/checkpoint.pt$" "$dir/run.log" || fail "rank 0 wrote no checkpoint: $(tail -3 "$dir/run.log")"
[ -s "$dir/run/checkpoint.pt" ] || fail "no checkpoint file"
echo "launcher killed: the ranks stopped $(($(date +%s) - killed)) s later; $(grep -m1 'stopped by' "$dir/run.log")"
echo "OK"
