#!/usr/bin/env bash
# Writes every golden archive in tests/golden/ from the references: PyTorch
# (python3-torch, /usr/bin/python3) and, for the BPE ids, tiktoken's WebAssembly
# build and @lenml/tokenizers (tokenizer.json) run by node. Needs the fetched data
# (scripts/fetch-data.sh).
set -euo pipefail
cd "$(dirname "$0")"
for script in show.py ch02_simple_tokenizer.py ch02_data_loader.py ch03_attention.py ch04_gpt.py ch05_blocks.py ch05_families.py "ch05_train.py --goldens" ch07_dpo.py distributed_sampler.py numpy_sample.py; do
  /usr/bin/python3 $script
done
if command -v node >/dev/null; then
  [ -d ../node_modules/@dqbd/tiktoken ] && [ -d ../node_modules/@lenml/tokenizers ] || (cd .. && npm install --no-audit --no-fund --silent)
  node bpe_golden.mjs
  node tokenizer_json_golden.mjs
else
  echo "node is missing: tests/golden/bpe-tiktoken.json and tokenizer-json.json left as they are" >&2
fi
