#!/usr/bin/env bash
# Greedy generation of 200 tokens with the 124M model, uncached and with the KV cache,
# in C++ and in PyTorch (the same model, seed and threads; PyTorch's KV cache as the
# course writes it), side by side in one run. Prints tokens/s, the cache's speed-up,
# our speed over PyTorch's, and whether all four produced the same tokens.
#
#   scripts/bench/generate.sh [THREADS] [NEW_TOKENS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
threads="${1:-1}" new_tokens="${2:-200}"
[ -x "$root/build/bin/bench-generate" ] || { echo "build first: scripts/setup.sh" >&2; exit 1; }
echo "Greedy generation, 124M, $new_tokens new tokens, $threads threads, $(nproc) cores: $(lscpu | sed -n 's/^Model name: *//p')"
cpp="$("$root/build/bin/bench-generate" --new-tokens "$new_tokens" --threads "$threads")"
py="$(/usr/bin/python3 "$root/scripts/bench/generate.py" --new-tokens "$new_tokens" --threads "$threads")"
/usr/bin/python3 - "$cpp" "$py" <<'PY'
import json, sys
cpp = {r["variant"]: r for r in map(json.loads, sys.argv[1].splitlines())}
py = {r["variant"]: r for r in map(json.loads, sys.argv[2].splitlines())}
print(f"{'variant':<10} {'C++ tok/s':>10} {'PyTorch tok/s':>14} {'C++ / PyTorch':>14}")
for v in ("uncached", "kv-cache"):
    c, p = cpp[v]["tokens_per_second"], py[v]["tokens_per_second"]
    print(f"{v:<10} {c:>10.1f} {p:>14.1f} {c / p:>13.2f}x")
print(f"KV cache speed-up: C++ {cpp['kv-cache']['tokens_per_second'] / cpp['uncached']['tokens_per_second']:.2f}x, "
      f"PyTorch {py['kv-cache']['tokens_per_second'] / py['uncached']['tokens_per_second']:.2f}x")
same = len({json.dumps(r["ids"]) for r in [*cpp.values(), *py.values()]}) == 1
print("same tokens in all four runs:", "yes" if same else "NO")
sys.exit(0 if same else 1)
PY
