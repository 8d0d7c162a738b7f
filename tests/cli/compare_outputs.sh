#!/usr/bin/env bash
# Runs a chapter executable with --save-outputs, then scripts/reference/compare.py on
# the archive: Python's torch.load must read it, and the PyTorch reference must
# reproduce its numbers.
#
#   compare_outputs.sh EXE PYTHON [FLAG]...
set -uo pipefail
exe="$1" python="$2"
shift 2
source "$(dirname "$0")/common.sh"
case "$(basename "$exe")" in
  ch05-07-*) require_data tokenizers/llama3/tokenizer.json ;;  # the notebooks' chat prompts
  ch05-11-*) require_data tokenizers/qwen3/tokenizer.json ;;
  ch05-12-*) require_data tokenizers/gemma3/tokenizer.json ;;
  ch05-14-*) require_data the-verdict.txt tokenizers/qwen3/tokenizer.json tokenizers/llama3/tokenizer.json ;;
  ch02-*|ch05-*|generate) require_data the-verdict.txt gpt2/encoder.json gpt2/vocab.bpe ;;
  ch03-07-*|ch04-01-*|ch04-06-*|ch04-07-*|ch06-*) require_data gpt2/encoder.json gpt2/vocab.bpe ;;  # they tokenize a prompt
  ch07-01-*) require_data instruction-data.json ;;
  ch07-06-*) require_data instruction-data-with-preference.json gpt2/encoder.json gpt2/vocab.bpe ;;
  ch07-*) require_data instruction-data.json gpt2/encoder.json gpt2/vocab.bpe ;;
esac
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
"$exe" "$@" --save-outputs "$dir/out.pt" >/dev/null || { echo "FAILED: $exe exited $?"; exit 1; }
"$python" scripts/reference/compare.py "$dir/out.pt"
