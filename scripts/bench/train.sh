#!/usr/bin/env bash
# Training throughput side by side: tokens/s of forward + backward + AdamW step for
# the tiny config and for 124M at context 256, batch 2, in C++ and in PyTorch with the
# same threads; model FLOPs utilisation (6 x parameters x tokens/s, plus attention's
# 6 x layers x context x width per token) against the float32 matmul peak that the
# same script measures (a 2048 x 2048 product).
#
#   scripts/bench/train.sh [THREADS] [ITERS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
threads="${1:-$(nproc)}" iters="${2:-3}"
[ -x "$root/build/bin/bench-train" ] || { echo "build first: scripts/setup.sh" >&2; exit 1; }
echo "Training step, batch 2, $threads threads, $(nproc) cores: $(lscpu | sed -n 's/^Model name: *//p')"
peak_cpp="$("$root/build/bin/bench-train" --matmul 2048 --iters 5 --threads "$threads")"
peak_py="$(/usr/bin/python3 "$root/scripts/bench/train.py" --matmul 2048 --iters 5 --threads "$threads")"
rows=()
for case in "tiny.json 0" "gpt2-small.json 256"; do
  set -- $case
  cpp="$("$root/build/bin/bench-train" --config "$root/configs/$1" --context "$2" --iters "$iters" --threads "$threads")"
  py="$(/usr/bin/python3 "$root/scripts/bench/train.py" --config "$root/configs/$1" --context "$2" --iters "$iters" --threads "$threads")"
  rows+=("$1 $2|$cpp|$py")
done
/usr/bin/python3 - "$root" "$peak_cpp" "$peak_py" "${rows[@]}" <<'PY'
import json, pathlib, sys
root, peak_cpp, peak_py, *rows = sys.argv[1:]
peak_cpp, peak_py = json.loads(peak_cpp)["gflops"], json.loads(peak_py)["gflops"]
print(f"float32 matmul peak: C++ {peak_cpp:.1f} GFLOP/s, PyTorch {peak_py:.1f} GFLOP/s")
print(f"{'config':<22} {'C++ tok/s':>10} {'PyTorch tok/s':>14} {'C++ / PyTorch':>14} {'C++ MFU':>8} {'PyTorch MFU':>12}")
for row in rows:
    name, cpp, py = row.split("|")
    cpp, py = json.loads(cpp), json.loads(py)
    config, context = name.split()
    cfg = json.loads((pathlib.Path(root) / "configs" / config).read_text())
    t = int(context) or cfg["context_length"]
    flops_per_token = 6 * cpp["parameters"] + 6 * cfg["n_layers"] * t * cfg["emb_dim"]
    mfu = lambda r, peak: flops_per_token * r["tokens_per_second"] / (peak * 1e9)
    label = config.removesuffix(".json") + (f" ctx {t}" if int(context) else "")
    print(f"{label:<22} {cpp['tokens_per_second']:>10.1f} {py['tokens_per_second']:>14.1f} "
          f"{cpp['tokens_per_second'] / py['tokens_per_second']:>13.2f}x {mfu(cpp, peak_cpp):>7.1%} {mfu(py, peak_py):>11.1%}")
PY
