#!/usr/bin/env bash
# Chapter 6 end to end: prepares the spam data (the lesson's SMS Spam Collection when
# its zip could be fetched, else the SpamAssassin corpus), shows the loaders, finetunes
# a classifier and classifies the lesson's two texts with it. Arguments go to the
# finetuning step.
#
# With GPT-2 124M in models/ (scripts/download-gpt2.sh 124M) it finetunes the lesson's
# model (configs/train-classify.json: the last block, final_norm and the head) for one
# epoch on texts cut to 128 tokens, about 25 minutes on 2 cores; else a small GPT from
# random weights, every layer trained (configs/train-classify-quick.json), in under a
# minute. The lesson's full run (5 epochs, 120-token SMS) is
#   build/bin/ch06-04-finetune --load-state-dict models/gpt2-124m/model.safetensors
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh classify-job

echo
echo "==> Lesson 6.2: the data"
build/bin/ch06-01-data

echo
echo "==> Lesson 6.3: datasets and loaders"
build/bin/ch06-02-loaders

weights=""
for candidate in models/gpt2-124m/model.safetensors models/gpt2-small-124M.pth; do
  if [ -f "$candidate" ]; then weights="$candidate"; break; fi
done
echo
if [ -n "$weights" ]; then
  echo "==> Lessons 6.4-6.7: finetuning GPT-2 124M ($weights), one epoch, texts cut to 128 tokens"
  build/bin/ch06-04-finetune --train-config configs/train-classify.json --load-state-dict "$weights" \
    --num-epochs 1 --max-length 128 --out-dir runs/classify --overwrite "$@"
  run=runs/classify
else
  echo "==> Lessons 6.6-6.7: finetuning a small GPT from random weights (no GPT-2 in models/)"
  build/bin/ch06-04-finetune --train-config configs/train-classify-quick.json --out-dir runs/classify-quick \
    --overwrite "$@"
  run=runs/classify-quick
fi

echo
echo "==> Lesson 6.8: classifying the lesson's two texts"
build/bin/ch06-05-classify --checkpoint "$run/checkpoint.pt"
echo
echo "More: build/bin/ch06-05-classify --checkpoint $run/checkpoint.pt --text \"...\"   (or --data FILE, one text per line)"
