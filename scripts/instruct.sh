#!/usr/bin/env bash
# Chapter 7 end to end: the instruction data (lesson 7.2), its batches (7.3), a
# finetuned model (7.5-7.6), its responses to the test set (7.7), and, when an Ollama
# server answers on localhost:11434, their scores (7.8). Arguments go to the
# finetuning step.
#
# With GPT-2 355M in models/ (scripts/download-gpt2.sh 355M) it finetunes the lesson's
# model (configs/train-instruct.json) for the lesson's 2 epochs: hours on 2 cores (see
# the README). Else a small GPT from random weights (configs/train-instruct-quick.json)
# in a few minutes, whose responses show the format it learned more than any
# knowledge.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh instruct-job

echo
echo "==> Lesson 7.2: the data"
build/bin/ch07-01-data

echo
echo "==> Lesson 7.3: batches (the shapes of the first training batches)"
build/bin/ch07-02-batching | sed -n '/^Train loader:/,+4p'

weights=""
for candidate in models/gpt2-355m/model.safetensors models/gpt2-medium-355M.pth; do
  if [ -f "$candidate" ]; then weights="$candidate"; break; fi
done
echo
if [ -n "$weights" ]; then
  echo "==> Lessons 7.5-7.6: finetuning GPT-2 355M ($weights), 2 epochs"
  build/bin/ch07-03-finetune --train-config configs/train-instruct.json --load-state-dict "$weights" \
    --out-dir runs/instruct --overwrite --save-state-dict runs/instruct/gpt2-medium355M-sft.pth "$@"
  run=runs/instruct
else
  echo "==> Lessons 7.5-7.6: finetuning a small GPT from random weights (no GPT-2 355M in models/)"
  build/bin/ch07-03-finetune --train-config configs/train-instruct-quick.json --out-dir runs/instruct-quick \
    --overwrite --save-state-dict runs/instruct-quick/model-sft.pth "$@"
  run=runs/instruct-quick
fi

echo
echo "==> Lesson 7.7: responses to the 110 test entries"
build/bin/ch07-04-responses --checkpoint "$run/checkpoint.pt" --out "$run/instruction-data-with-response.json"

echo
echo "==> Lesson 7.8: scoring the responses with Ollama (llama3 on localhost:11434)"
build/bin/ch07-05-evaluate --data "$run/instruction-data-with-response.json" ||
  echo "(not scored: start Ollama with 'ollama serve' and 'ollama pull llama3', then run the line above again)"
