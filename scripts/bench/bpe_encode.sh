#!/usr/bin/env bash
# BPE encode throughput on Moby Dick (or FILE), one thread each: this project's C++
# tokenizer next to tiktoken's WebAssembly build and js-tiktoken for GPT-2, and next to
# @lenml/tokenizers for Llama 3's, Qwen3's and Gemma 3's tokenizer.json, run by node in
# the same script. Prints MB/s and the ratio of ours to each.
#
#   scripts/bench/bpe_encode.sh [FILE] [REPEAT]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
file="${1:-$root/data/moby-dick.txt}"
repeat="${2:-5}"
[ -x "$root/build/bin/bench-bpe-encode" ] || { echo "build first: scripts/setup.sh" >&2; exit 1; }
command -v node >/dev/null || { echo "node is needed (apt-get install nodejs npm)" >&2; exit 1; }
[ -d "$root/scripts/node_modules/@lenml/tokenizers" ] || (cd "$root/scripts" && npm install --no-audit --no-fund --silent)

echo "BPE encode, $(basename "$file") ($(stat -c %s "$file") bytes), best of $repeat, one thread, $(nproc) cores: $(lscpu | sed -n 's/^Model name: *//p')"
for tokenizer in gpt2 llama3 qwen3 gemma3; do
  dir=""
  [ "$tokenizer" = gpt2 ] || dir="$root/data/tokenizers/$tokenizer"
  results="$( "$root/build/bin/bench-bpe-encode" --tokenizer "$tokenizer" --data "$file" --repeat "$repeat"
              node "$root/scripts/bench/bpe_encode.mjs" "$file" "$repeat" $dir )"
  /usr/bin/python3 - "$tokenizer" "$results" <<'PY'
import json, sys
rows = [json.loads(line) for line in sys.argv[2].splitlines()]
ours = rows[0]
print(f"\n{sys.argv[1]}:")
print(f"{'implementation':<40} {'tokens':>8} {'MB/s':>8} {'ours / it':>10}")
for r in rows:
    print(f"{r['name']:<40} {r['tokens']:>8} {r['mb_per_s']:>8.2f} {ours['mb_per_s'] / r['mb_per_s']:>9.2f}x")
if len({r["tokens"] for r in rows}) != 1:
    sys.exit("token counts differ between implementations")
PY
done
