#!/usr/bin/env bash
# One DPO step side by side (the ch07/04 notebook's compute_dpo_loss_batch, backward
# and AdamW step on its first batch of 8 preference entries): a policy and a frozen
# reference of GPT-2 124M (random weights: the speed is the same), in C++ and in the
# notebook's PyTorch code with the same intra-op threads. The two sides alternate,
# ROUNDS times, each keeping its best step; each side's peak resident memory is
# reported beside it, since DPO holds two models.
#
#   scripts/bench/dpo.sh [THREADS] [ITERS] [ROUNDS] [CONFIG]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
threads="${1:-1}" iters="${2:-3}" rounds="${3:-2}" config="${4:-gpt2-124m.json}"
[ -x "$root/build/bin/bench-dpo" ] || { echo "build first: scripts/setup.sh" >&2; exit 1; }
export LLM_DATA_DIR="${LLM_DATA_DIR:-$root/build/share/libtorch-llm/data}"
echo "DPO step, batch 8, $config, $threads intra-op threads, best of $iters steps x $rounds rounds, $(nproc) cores: $(lscpu | sed -n 's/^Model name: *//p')"
args=(--config "$root/configs/$config" --iters "$iters" --threads "$threads")
best_cpp="" best_py=""
for _ in $(seq "$rounds"); do
  best_cpp+="$("$root/build/bin/bench-dpo" "${args[@]}")"$'\n'
  best_py+="$(/usr/bin/python3 "$root/scripts/bench/dpo.py" "${args[@]}")"$'\n'
done
/usr/bin/python3 - "$best_cpp" "$best_py" <<'PY'
import json, sys
def best(lines):
    runs = [json.loads(line) for line in lines.splitlines() if line.strip()]
    return min(r["seconds_per_step"] for r in runs), max(r["peak_rss"] for r in runs), runs[0]["tokens"]
(cpp, cpp_rss, tokens), (py, py_rss, _) = best(sys.argv[1]), best(sys.argv[2])
print(f"{'':<10}{'s/step':>10}{'tok/s':>10}{'peak RSS':>12}")
print(f"{'C++':<10}{cpp:>10.3f}{tokens / cpp:>10.1f}{cpp_rss / 1e9:>10.2f} GB")
print(f"{'PyTorch':<10}{py:>10.3f}{tokens / py:>10.1f}{py_rss / 1e9:>10.2f} GB")
print(f"C++ / PyTorch: {py / cpp:.2f}x the speed, {cpp_rss / py_rss:.2f}x the peak memory")
PY
