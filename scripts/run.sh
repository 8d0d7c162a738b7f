#!/usr/bin/env bash
# Sets everything up, then runs the main job: trains a small GPT on the-verdict (about
# a minute on 2 cores; configs/train-quick.json), samples text from it, and says where
# the checkpoint, metrics and plot are. Arguments go to the trainer, e.g.
#   scripts/run.sh --data moby-dick.txt --num-epochs 2     (a longer run)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh main-job  # only what the main job runs (ch05-02-train, generate); test.sh builds the rest

echo
echo "==> Training (configs/train-quick.json $*)"
build/bin/ch05-02-train --train-config configs/train-quick.json --out-dir runs/quick --overwrite "$@"

echo
echo "==> Sampling from the trained model (temperature 0.8, top-k 20, seed 123)"
build/bin/generate --checkpoint runs/quick/checkpoint.pt --prompt "Every effort moves you" \
  --max-new-tokens 40 --temperature 0.8 --top-k 20 --seed 123

echo
echo "Checkpoint: runs/quick/checkpoint.pt   (continue: build/bin/ch05-02-train --resume runs/quick/checkpoint.pt --num-epochs 40)"
echo "Metrics:    runs/quick/metrics.jsonl"
if [ -f runs/quick/losses.png ]; then echo "Plot:       runs/quick/losses.png"; fi
echo "More text:  build/bin/generate --checkpoint runs/quick/checkpoint.pt --prompt \"...\" --temperature 1 --top-k 40"
