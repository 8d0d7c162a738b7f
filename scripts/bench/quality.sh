#!/usr/bin/env bash
# What bfloat16 and int8 weights (--weights-dtype) cost a trained model, against its
# float32 weights: the largest logit difference while decoding greedily (each step fed
# float32's token), how many greedy tokens stay the same, and the perplexity on the
# validation part of the checkpoint's training text.
#
#   scripts/bench/quality.sh CHECKPOINT [THREADS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
[ $# -ge 1 ] || { echo "usage: scripts/bench/quality.sh CHECKPOINT [THREADS]" >&2; exit 2; }
[ -x "$root/build/bin/bench-quality" ] || { echo "build first: scripts/setup.sh" >&2; exit 1; }
out="$("$root/build/bin/bench-quality" --checkpoint "$1" --threads "${2:-2}")"
/usr/bin/python3 - "$1" "$out" <<'PY'
import json, sys
rows = [json.loads(line) for line in sys.argv[2].splitlines()]
print(f"{sys.argv[1]}: {rows[0]['steps']} greedy steps")
print(f"{'weights':<9} {'MB':>7} {'largest logit diff':>19} {'same greedy tokens':>19} {'val loss':>9} {'perplexity':>11}")
for r in rows:
    print(f"{r['weights']:<9} {r['weight_bytes'] / 1e6:>7.1f} {r['largest_logit_difference']:>19.4f} "
          f"{r['same_greedy_tokens']:>12} of {r['steps']:<3} {r['val_loss']:>9.4f} {r['perplexity']:>11.2f}")
PY
