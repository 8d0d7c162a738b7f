#!/usr/bin/env bash
# Token files at scale (docs/benchmarks.md): synthetic corpora of the public texts
# repeated to each size, then, side by side with nanoGPT's way in Python (a process
# pool encoding with the same GPT-2 BPE, np.memmap, random windows):
#   - prepare's throughput on 1 and 2 threads, and its peak memory, by corpus size
#     (the pure-Python BPE runs only up to PY_MB: about 1.5 MB/s a core);
#   - training's peak memory, time from start to the first step and data-loading
#     share (configs/small.json, random windows, batch 8), by corpus size.
# The two token files of each size Python prepares must hold the same ids.
#
#   scripts/bench/corpus.sh [DIR] [PY_MB] [STEPS] [SIZES_MB...]
#   (defaults: a temporary folder, 100, 20, and 100 500 1000)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${1:-}" py_mb="${2:-100}" steps="${3:-20}"
shift $(( $# < 3 ? $# : 3 ))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 500 1000)
for exe in prepare ch05-02-train; do
  [ -x "$root/build/bin/$exe" ] || { echo "build first: scripts/setup.sh" >&2; exit 1; }
done
if [ -z "$dir" ]; then
  dir="$(mktemp -d)"
  trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"
echo "Token files, corpora of ${sizes[*]} MB (synthetic: Moby Dick and The Verdict repeated), $(nproc) cores: $(lscpu | sed -n 's/^Model name: *//p')"
/usr/bin/python3 "$root/scripts/bench/corpus.py" run "$root" "$dir" "$py_mb" "$steps" "${sizes[@]}"
