#!/usr/bin/env bash
# Greedy KV-cache generation with Qwen3 0.6B and Llama 3.2 1B (seeded random weights,
# the same prompt ids), in float32 and bfloat16, in C++ and with the course's KV-cache
# code on PyTorch (pkg/llms_from_scratch/kv_cache, scripts/reference/llms_kv_cache.py),
# side by side in one run: tokens/s, our speed over the course's, the peak resident
# memory of each process, and whether both produced the same tokens. A third row per
# model decodes the float32 model with int8 weights (--weights-dtype int8) against the
# course's float32; the bfloat16 row runs the bfloat16 model, its one-token products
# through the bfloat16 decode kernels.
#
#   scripts/bench/generate_families.sh [THREADS] [NEW_TOKENS] [CONFIG...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
threads="${1:-1}" new_tokens="${2:-20}"
shift $(($# < 2 ? $# : 2))
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(qwen3-0.6b llama32-1b)
[ -x "$root/build/bin/bench-generate" ] || { echo "build first: scripts/setup.sh" >&2; exit 1; }
echo "Greedy KV-cache generation, $new_tokens new tokens, $threads threads, $(nproc) cores: $(lscpu | sed -n 's/^Model name: *//p')"
printf '%-12s %-9s %10s %14s %14s %12s %14s %5s\n' model dtype "C++ tok/s" "course tok/s" "C++ / course" "C++ peak" "course peak" same
status=0
for config in "${configs[@]}"; do
  for dtype in float32 bfloat16 int8; do
    file="$root/configs/$config.json"
    model_dtype="$dtype" weights_dtype=float32
    [ "$dtype" = int8 ] && model_dtype=float32 weights_dtype=int8
    cpp="$("$root/build/bin/bench-generate" --config "$file" --dtype "$model_dtype" --weights-dtype "$weights_dtype" \
      --cached-only --new-tokens "$new_tokens" --threads "$threads")"
    # The course's float32 run serves the int8 row too.
    if [ "$dtype" = int8 ]; then
      py="$py_float32"
    else
      py="$(/usr/bin/python3 "$root/scripts/bench/generate_families.py" --config "$file" \
        --dtype "$dtype" --new-tokens "$new_tokens" --threads "$threads")"
    fi
    [ "$dtype" = float32 ] && py_float32="$py"
    /usr/bin/python3 - "$config" "$dtype" "$cpp" "$py" <<'PY' || status=1
import json, sys
config, dtype, cpp, py = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
gb = lambda b: f"{b / 1e9:.2f} GB"
same = cpp["ids"] == py["ids"]
print(f"{config:<12} {dtype:<9} {cpp['tokens_per_second']:>10.2f} {py['tokens_per_second']:>14.2f} "
      f"{cpp['tokens_per_second'] / py['tokens_per_second']:>13.2f}x {gb(cpp['peak_rss_bytes']):>12} "
      f"{gb(py['peak_rss_bytes']):>14} {'yes' if same else 'NO':>5}")
sys.exit(0 if same or dtype != "float32" else 1)  # fewer bits round: ids may part after a near tie
PY
  done
done
exit $status
