#!/usr/bin/env bash
# Greedy generation of 200 tokens with GPT-2 (124M, or CONFIG), side by side in one run:
#  - uncached and with the KV cache, in C++ and in PyTorch (the same model, seed and
#    threads; PyTorch's KV cache as the course writes it): tokens/s, the cache's
#    speed-up, our speed over PyTorch's, and whether all four made the same tokens;
#  - KV-cache decoding with the weights in float32, bfloat16 and int8 (--weights-dtype),
#    against PyTorch in float32 and in bfloat16: tokens/s, the bytes of weights each
#    token reads, the GB/s that makes next to the machine's read bandwidth (a 1 GB
#    tensor summed on the same threads), how many tokens equal float32's, and the
#    process's peak resident memory.
#
#   scripts/bench/generate.sh [THREADS] [NEW_TOKENS] [CONFIG]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
threads="${1:-1}" new_tokens="${2:-200}" config="${3:-$root/configs/gpt2-small.json}"
bench="$root/build/bin/bench-generate"
[ -x "$bench" ] || { echo "build first: scripts/setup.sh" >&2; exit 1; }
echo "Greedy generation, $(basename "$config" .json), $new_tokens new tokens, $threads threads, $(nproc) cores:" \
  "$(lscpu | sed -n 's/^Model name: *//p')"
cpp="$("$bench" --config "$config" --new-tokens "$new_tokens" --threads "$threads")"
py="$(/usr/bin/python3 "$root/scripts/bench/generate.py" --config "$config" --new-tokens "$new_tokens" --threads "$threads")"
bandwidth="$("$bench" --bandwidth --threads "$threads")"
cpp_bf16="$("$bench" --config "$config" --new-tokens "$new_tokens" --threads "$threads" --cached-only --weights-dtype bfloat16)"
cpp_int8="$("$bench" --config "$config" --new-tokens "$new_tokens" --threads "$threads" --cached-only --weights-dtype int8)"
py_bf16="$(/usr/bin/python3 "$root/scripts/bench/generate.py" --config "$config" --new-tokens "$new_tokens" \
  --threads "$threads" --dtype bfloat16 --cached-only)"
/usr/bin/python3 - "$cpp" "$py" "$bandwidth" "$cpp_bf16" "$cpp_int8" "$py_bf16" <<'PY'
import json, sys
cpp = {r["variant"]: r for r in map(json.loads, sys.argv[1].splitlines())}
py = {r["variant"]: r for r in map(json.loads, sys.argv[2].splitlines())}
bandwidth = json.loads(sys.argv[3])["read_gb_per_s"]
decode = {"float32": cpp["kv-cache"], "bfloat16": json.loads(sys.argv[4]), "int8": json.loads(sys.argv[5])}
py_bf16 = json.loads(sys.argv[6])
print(f"{'variant':<10} {'C++ tok/s':>10} {'PyTorch tok/s':>14} {'C++ / PyTorch':>14}")
for v in ("uncached", "kv-cache"):
    c, p = cpp[v]["tokens_per_second"], py[v]["tokens_per_second"]
    print(f"{v:<10} {c:>10.1f} {p:>14.1f} {c / p:>13.2f}x")
print(f"KV cache speed-up: C++ {cpp['kv-cache']['tokens_per_second'] / cpp['uncached']['tokens_per_second']:.2f}x, "
      f"PyTorch {py['kv-cache']['tokens_per_second'] / py['uncached']['tokens_per_second']:.2f}x")
same = len({json.dumps(r["ids"]) for r in [*cpp.values(), *py.values()]}) == 1
print("same tokens in all four runs:", "yes" if same else "NO")

print(f"\nKV-cache decoding by weights dtype ({decode['float32']['kernels']} kernels); "
      f"read bandwidth {bandwidth:.1f} GB/s on {json.loads(sys.argv[3])['threads']} threads")
print(f"{'weights':<9} {'tok/s':>7} {'MB/token':>9} {'GB/s':>6} {'of bw':>6} {'vs f32':>7} {'vs PyTorch f32':>15} "
      f"{'vs PyTorch bf16':>16} {'same tokens':>12} {'peak':>8}")
f32 = decode["float32"]
reference = f32["ids"][4:]
for name, r in decode.items():
    tps, mb = r["tokens_per_second"], r["weight_bytes"] / 1e6
    gbs = tps * r["weight_bytes"] / 1e9
    equal = sum(a == b for a, b in zip(r["ids"][4:], reference))
    print(f"{name:<9} {tps:>7.1f} {mb:>9.1f} {gbs:>6.1f} {gbs / bandwidth:>6.0%} {tps / f32['tokens_per_second']:>6.2f}x "
          f"{tps / py['kv-cache']['tokens_per_second']:>14.2f}x {tps / py_bf16['tokens_per_second']:>15.2f}x "
          f"{equal:>5} of {len(reference)} {r['peak_rss_bytes'] / 1e9:>6.2f} GB")
print(f"PyTorch bfloat16 (the whole model in bfloat16): {py_bf16['tokens_per_second']:.1f} tok/s")
sys.exit(0 if same else 1)
PY
