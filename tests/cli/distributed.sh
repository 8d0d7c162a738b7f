#!/usr/bin/env bash
# Data-parallel training on loopback (c10d, Gloo):
#  1. 2 ranks at batch B reach the same weights after K steps as 1 process at batch
#     2B, within the training tolerance (scripts/reference/common.py), with dropout 0
#     (both through scripts/launch.sh);
#  2. the 2 ranks' weights are identical to each other at the end;
#  3. when one rank dies (SIGKILL), the other exits within the timeout with one
#     clear error line instead of hanging.
#
#   distributed.sh BIN_DIR WORK_DIR [STEPS]
set -uo pipefail
bin="$1" dir="$2" steps="${3:-6}"
source "$(dirname "$0")/common.sh"
require_data the-verdict.txt gpt2/encoder.json gpt2/vocab.bpe
fail() { echo "FAILED: $*"; tail -5 "$dir"/*.log 2>/dev/null; exit 1; }
scratch_dir "$dir"
port() { echo $((20000 + (RANDOM % 20000))); }

settings=(--config tests/cli/fixtures/configs/tiny-no-dropout.json --max-steps "$steps" --eval-freq 1000
          --no-plot --progress never --dist-timeout 60)
scripts/launch.sh -n 2 --master-port "$(port)" "$bin/ch05-02-train" "${settings[@]}" --batch-size 2 \
  --out-dir "$dir/two" >"$dir/two.log" 2>&1 || fail "the 2-rank run failed: $(tail -3 "$dir/two.log")"
scripts/launch.sh -n 1 --master-port "$(port)" "$bin/ch05-02-train" "${settings[@]}" --batch-size 4 \
  --out-dir "$dir/one" >"$dir/one.log" 2>&1 || fail "the 1-process run failed: $(tail -3 "$dir/one.log")"

grep -q "^Data-parallel: world size 2 " "$dir/two.log" || fail "the 2-rank run did not say it was data-parallel"
grep -q "^Ranks: 2 processes; largest difference of a weight from rank 0's: 0$" "$dir/two.log" ||
  fail "the ranks' weights differ: $(grep '^Ranks:' "$dir/two.log")"
[ "$(grep -c "^Model:" "$dir/two.log")" -eq 1 ] || fail "a rank other than 0 printed to stdout"
PYTHONPATH=scripts/reference /usr/bin/python3 - "$dir/two/checkpoint.pt" "$dir/one/checkpoint.pt" "$steps" <<'PY' || fail "the weights differ"
import json
import sys
import torch
import gpt
from common import ROOT, closeness
two, one = torch.load(sys.argv[1]), torch.load(sys.argv[2])
assert int(two["progress/step"]) == int(one["progress/step"]) == int(sys.argv[3]), "not the same number of steps"
names = [k for k in one if k.startswith("model/")]
assert names and set(names) == {k for k in two if k.startswith("model/")}
results = [closeness(two[k], one[k], "training") for k in names]
worst = max(diff for _, diff, _, _ in results)
# The weights the runs started from (seed 123, the lesson's init): training must have moved them.
torch.manual_seed(123)
start = gpt.GPTModel(json.loads((ROOT / "tests/cli/fixtures/configs/tiny-no-dropout.json").read_text())).state_dict()
moved = min((two[k] - start[k[len("model/"):]]).abs().max().item() for k in names if k.endswith("weight"))
print(f"{len(names)} tensors after {sys.argv[3]} steps: largest difference, 2 ranks at batch 2 vs 1 at batch 4: "
      f"{worst:.3g}; every weight moved from its start by up to at least {moved:.3g}")
assert all(ok for ok, _, _, _ in results), f"not within the training tolerance: {worst}"
assert moved > 1e-4, f"a weight matrix did not move from its initial value in training ({moved:.3g})"
PY

# A rank that dies: the other must notice within the timeout and say so.
p=$(port)
long=(--config configs/tiny.json --max-steps 100000 --no-plot --progress never --dist-timeout 30)
WORLD_SIZE=2 RANK=0 MASTER_PORT=$p "$bin/ch05-02-train" "${long[@]}" >"$dir/dead0.log" 2>"$dir/dead0.err" &
rank0=$!
WORLD_SIZE=2 RANK=1 MASTER_PORT=$p "$bin/ch05-02-train" "${long[@]}" >/dev/null 2>&1 &
rank1=$!
for _ in $(seq 600); do grep -q "^Data-parallel" "$dir/dead0.log" 2>/dev/null && break; sleep 0.1; done
sleep 2
kill -KILL $rank1
killed=$(date +%s)
for _ in $(seq 450); do kill -0 $rank0 2>/dev/null || break; sleep 0.1; done
if kill -0 $rank0 2>/dev/null; then
  kill -KILL $rank0
  fail "rank 0 still ran 45 s after rank 1 died"
fi
wait $rank0
code=$?
took=$(($(date +%s) - killed))
[ $code -eq 1 ] || fail "rank 0 exited with $code after rank 1 died, expected 1: $(cat "$dir/dead0.err")"
[ "$(wc -l <"$dir/dead0.err")" -eq 1 ] || fail "expected one error line: $(cat "$dir/dead0.err")"
grep -q "rank 0: lost the other ranks" "$dir/dead0.err" || fail "unclear error: $(cat "$dir/dead0.err")"
echo "rank 1 killed; rank 0 exited $code after ${took} s: $(cat "$dir/dead0.err")"
echo "OK"
