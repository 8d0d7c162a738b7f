#!/usr/bin/env bash
# Forward + backward of the multi-head attention variants (stacked heads, split
# weights, grouped-query) in C++ and in PyTorch, side by side in one run, with the
# same sizes and threads. Prints seconds per step and PyTorch's time over ours.
#
#   scripts/bench/attention.sh [THREADS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
threads="${1:-1}"
[ -x "$root/build/bin/bench-attention" ] || { echo "build first: scripts/setup.sh" >&2; exit 1; }
echo "Attention forward + backward, $threads threads, $(nproc) cores: $(lscpu | sed -n 's/^Model name: *//p')"
for size in "--batch-size 8 --tokens 1024 --width 768 --heads 12 --groups 4 --iters 3" \
            "--batch-size 8 --tokens 256 --width 256 --heads 8 --groups 2 --iters 10"; do
  # shellcheck disable=SC2086
  cpp="$("$root/build/bin/bench-attention" $size --threads "$threads")"
  # shellcheck disable=SC2086
  py="$(/usr/bin/python3 "$root/scripts/bench/attention.py" $size --threads "$threads")"
  /usr/bin/python3 - "$size" "$cpp" "$py" <<'PY'
import json, sys
size, cpp, py = sys.argv[1], [json.loads(l) for l in sys.argv[2].splitlines()], [json.loads(l) for l in sys.argv[3].splitlines()]
print(f"\n{size}")
print(f"{'variant':<10} {'C++ s/step':>11} {'PyTorch s/step':>15} {'PyTorch / C++':>14}")
for c, p in zip(cpp, py):
    print(f"{c['variant']:<10} {c['seconds']:>11.4f} {p['seconds']:>15.4f} {p['seconds'] / c['seconds']:>13.2f}x")
PY
done
