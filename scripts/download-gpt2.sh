#!/usr/bin/env bash
# Downloads OpenAI's pretrained GPT-2 weights for lesson 5.5:
#
#   scripts/download-gpt2.sh 124M|355M|774M|1558M [safetensors|pth]
#
# safetensors (the default): model.safetensors of the public Hugging Face checkpoint
# (openai-community/gpt2, -medium, -large, -xl), in Hugging Face's layout, into
# models/gpt2-<size>/model.safetensors. pth: the lesson's converted state dict
# (rasbt/gpt2-from-scratch-pytorch, gpt2-small-124M.pth ...), into models/. Both load
# with --config configs/gpt2-<size>.json --load-state-dict FILE.
#
# The download goes to FILE.part, shows curl's progress, continues a .part left by
# an interrupted run (or starts over when the server cannot resume), and becomes FILE
# only once it is whole: its size is the server's Content-Length, and its SHA-256 is
# the pinned one when one is known (LLM_GPT2_SHA256_<SIZE>, e.g. LLM_GPT2_SHA256_124M,
# pins it by hand for that size). Otherwise the hash is written to FILE.sha256 on
# first download and checked on every later run. A present file whose hash does not
# match is kept until a new download is whole and checked, and then replaced.
#
# LLM_MODELS_DIR changes the folder, LLM_GPT2_BASE_URL the server (for a mirror or
# the tests).
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
usage="usage: scripts/download-gpt2.sh 124M|355M|774M|1558M [safetensors|pth]"
size="${1:-}" format="${2:-safetensors}"
case "$size" in
  124M) hf=gpt2 lesson=gpt2-small-124M.pth ;;
  355M) hf=gpt2-medium lesson=gpt2-medium-355M.pth ;;
  774M) hf=gpt2-large lesson=gpt2-large-774M.pth ;;
  1558M) hf=gpt2-xl lesson=gpt2-xl-1558M.pth ;;
  *) echo "download-gpt2.sh: size '$size': expected 124M, 355M, 774M or 1558M; $usage" >&2; exit 2 ;;
esac
models="${LLM_MODELS_DIR:-$root/models}"
lower="$(echo "$size" | tr 'M' 'm')"
case "$format" in
  safetensors)
    url="${LLM_GPT2_BASE_URL:-https://huggingface.co}/openai-community/$hf/resolve/main/model.safetensors"
    out="$models/gpt2-$lower/model.safetensors" ;;
  pth)
    url="${LLM_GPT2_BASE_URL:-https://huggingface.co}/rasbt/gpt2-from-scratch-pytorch/resolve/main/$lesson"
    out="$models/$lesson" ;;
  *) echo "download-gpt2.sh: format '$format': expected safetensors or pth; $usage" >&2; exit 2 ;;
esac

# Pinned SHA-256 sums. None could be looked up where this script was written (no
# access to the publishers' LFS pointers), so none is pinned yet: the size and the
# hash recorded on first download guard the file instead (see the header).
pin_name="LLM_GPT2_SHA256_$size"
pinned="${!pin_name:-}"

sha() { sha256sum "$1" | cut -d' ' -f1; }
use() {
  echo "Use it with: --config configs/gpt2-$lower.json --load-state-dict $out"
}
if [ -f "$out" ]; then
  recorded="$pinned"
  [ -n "$recorded" ] || recorded="$(cat "$out.sha256" 2>/dev/null || true)"
  if [ -z "$recorded" ]; then
    echo "$out: present (put there by hand: no hash to check it against)"
    use
    exit 0
  fi
  if [ "$(sha "$out")" = "$recorded" ]; then
    echo "$out: present, SHA-256 checked"
    use
    exit 0
  fi
  echo "$out: present but its SHA-256 is not the expected one; downloading it again (it stays until the new" \
    "file is whole and checked)" >&2
fi
command -v curl >/dev/null || { echo "download-gpt2.sh: curl is not installed (scripts/install-packages.sh)" >&2; exit 1; }
mkdir -p "$(dirname "$out")" || exit 1
part="$out.part"

echo "Downloading $url"
# The size the server announces (after redirects), to check the file against.
expected="$(curl -fsSIL --connect-timeout 20 "$url" 2>/dev/null | tr -d '\r' |
  awk 'tolower($1) == "content-length:" { n = $2 } END { print n }')"
if [ -z "$expected" ]; then
  echo "download-gpt2.sh: cannot reach $url (offline?). Download that file elsewhere and put it at $out," \
    "or pass its path to --load-state-dict" >&2
  exit 1
fi
progress=(-s)
[ -t 2 ] && progress=(-#)
fetch() { curl -fL "${progress[@]}" --retry 2 --connect-timeout 20 "$@" -o "$part" "$url"; }
if [ -s "$part" ]; then
  echo "continuing $part ($(stat -c %s "$part") of $expected bytes)"
  fetch -C -
  status=$?
  if [ "$status" -ne 0 ]; then  # e.g. 33: the server cannot resume
    echo "could not continue (curl exit $status); starting over"
    rm -f "$part"
    fetch
    status=$?
  fi
else
  fetch
  status=$?
fi
if [ "$status" -ne 0 ]; then
  echo "download-gpt2.sh: the download of $url failed (curl exit $status); run again to continue it" >&2
  exit 1
fi
got="$(stat -c %s "$part")"
if [ "$got" != "$expected" ]; then
  rm -f "$part"
  echo "download-gpt2.sh: $url gave $got bytes, expected $expected; removed, run again" >&2
  exit 1
fi
sum="$(sha "$part")"
if [ -n "$pinned" ] && [ "$sum" != "$pinned" ]; then
  rm -f "$part"
  echo "download-gpt2.sh: $url has SHA-256 $sum, expected $pinned; removed" >&2
  exit 1
fi
echo "$sum" >"$out.sha256.part" && mv "$part" "$out" && mv "$out.sha256.part" "$out.sha256" || exit 1
echo "$out: $got bytes, SHA-256 $sum"
use
