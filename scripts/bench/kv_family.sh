#!/usr/bin/env bash
# Chapter 4's KV-cache family (MHA, GQA, MLA, SWA, MoE) side by side in one run: the
# course's gpt_with_kv_*.py on PyTorch and the same models in C++, at the scripts'
# settings (GPT-2 124M's sizes, bfloat16, greedy): tokens/s, the ratio, each process's
# peak resident memory while generating (the course's "Max memory allocated"), and
# whether both generated the same ids. NEW_TOKENS 200 is the scripts' default; 4096 is the long context.
#
# ROUNDS (default 1) alternates the two sides and keeps each one's best; VARIANTS
# (mha gqa mla swa moe) picks some.
#
#   scripts/bench/kv_family.sh [THREADS] [NEW_TOKENS] [ROUNDS] [VARIANT...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
threads="${1:-1}" new_tokens="${2:-200}" rounds="${3:-1}"
shift $(($# < 3 ? $# : 3))
bench="$root/build/bin/bench-kv-family"
[ -x "$bench" ] || { echo "build first: scripts/setup.sh" >&2; exit 1; }
echo "Chapter 4's KV-cache family, $new_tokens new tokens, bfloat16, $threads threads, $(nproc) cores:" \
  "$(lscpu | sed -n 's/^Model name: *//p')"
exec /usr/bin/python3 "$root/scripts/bench/kv_family.py" "$bench" "$threads" "$new_tokens" "$rounds" "$@"
