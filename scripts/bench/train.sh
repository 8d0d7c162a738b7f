#!/usr/bin/env bash
# Training throughput side by side: tokens/s of forward + backward + AdamW step for
# the tiny config and for 124M at context 256, batch 2, in C++ and in PyTorch with the
# same intra-op threads (the BLAS uses its own threads on both sides); model FLOPs
# utilisation (6 x non-embedding parameters x tokens/s, plus attention's 6 x layers x
# context x width per token) against the float32 matmul peak that the same script
# measures (a 4096 x 4096 product). The two sides alternate, ROUNDS times, and each keeps its best,
# so that a noisy machine slows both alike.
#
# Each side's peak resident memory is reported beside it.
#
#   scripts/bench/train.sh [THREADS] [ITERS] [ROUNDS] [CONFIG...]
#
# CONFIGs (files of configs/, at their own context length) replace the two default
# cases: `scripts/bench/train.sh 2 2 1 qwen3-0.6b-256.json` is one training step of
# ch05-14-other-llms's Qwen3 (bfloat16, context 256) against the course's Qwen3Model.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
threads="${1:-1}" iters="${2:-3}" rounds="${3:-2}"
shift $(($# < 3 ? $# : 3))
cases=("tiny.json 0" "gpt2-small.json 256")
[ $# -eq 0 ] || { cases=(); for config in "$@"; do cases+=("$config 0"); done; }
[ -x "$root/build/bin/bench-train" ] || { echo "build first: scripts/setup.sh" >&2; exit 1; }
echo "Training step, batch 2, $threads intra-op threads, best of $iters steps x $rounds rounds, $(nproc) cores: $(lscpu | sed -n 's/^Model name: *//p')"
cpp() { "$root/build/bin/bench-train" --threads "$threads" "$@"; }
py() { /usr/bin/python3 "$root/scripts/bench/train.py" --threads "$threads" "$@"; }
lines=()
for _ in $(seq "$rounds"); do
  lines+=("peak cpp $(cpp --matmul 4096 --iters 3)" "peak py $(py --matmul 4096 --iters 3)")
  for case in "${cases[@]}"; do
    set -- $case
    args=(--config "$root/configs/$1" --context "$2" --iters "$iters")
    lines+=("$1:$2 cpp $(cpp "${args[@]}")" "$1:$2 py $(py "${args[@]}")")
  done
done
printf '%s\n' "${lines[@]}" | /usr/bin/python3 "$root/scripts/bench/train_report.py" "$root"
