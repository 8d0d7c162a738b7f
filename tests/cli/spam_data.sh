#!/usr/bin/env bash
# Lessons 6.2-6.3 against the lesson's pandas and PyTorch code (scripts/reference):
# ch06-01-data writes the same train/validation/test CSV bytes, and ch06-02-loaders
# the same padded ids and batches.
#
#   spam_data.sh BIN_DIR PYTHON WORK_DIR sms|spam-assassin
#
# sms runs on a stand-in zip that tests/cli/sms_fixture.py writes (the real one needs
# the network); spam-assassin on the fetched corpus (skipped when it is missing).
set -uo pipefail
bin="$1" python="$2" work="$3" dataset="$4"
source "$(dirname "$0")/common.sh"
require_data gpt2/encoder.json gpt2/vocab.bpe
scratch_dir "$work"
case "$dataset" in
  sms)
    "$python" tests/cli/sms_fixture.py "$work/sms.zip" || fail "cannot write the stand-in zip"
    source_flags=(--dataset sms --zip "$work/sms.zip") ;;
  spam-assassin)
    require_data spam-assassin/.complete
    source_flags=(--dataset spam-assassin) ;;
esac

compare() {  # ARCHIVE: compare.py must say OK for every output
  "$python" scripts/reference/compare.py "$1" || fail "compare.py on $1"
}
for seed in 123 7; do
  out="$work/seed-$seed"
  "$bin/ch06-01-data" "${source_flags[@]}" --seed "$seed" --out-dir "$out" --save-outputs "$out/data.pt" >"$out.log" ||
    fail "ch06-01-data --seed $seed exited $?: $(cat "$out.log")"
  compare "$out/data.pt"
done
out="$work/seed-123"
grep -q "^Dataset: the $([ "$dataset" = sms ] && echo "SMS Spam Collection" || echo "SpamAssassin public mail corpus")" \
  "$out.log" || fail "the run does not say which dataset it used: $(head -1 "$out.log")"
"$bin/ch06-02-loaders" --data "$out" --save-outputs "$out/loaders.pt" >"$out/loaders.log" || fail "ch06-02-loaders"
grep -Eq "^Input batch dimensions: torch.Size\(\[8, [0-9]+\]\)$" "$out/loaders.log" || fail "no batch shape line"
compare "$out/loaders.pt"
# Exercise 6.2's padding to a fixed length (cutting the longer texts).
"$bin/ch06-02-loaders" --data "$out" --max-length 16 --save-outputs "$out/loaders-16.pt" >/dev/null ||
  fail "ch06-02-loaders --max-length 16"
compare "$out/loaders-16.pt"
echo "OK: lessons 6.2-6.3 on $dataset equal the lesson's pandas and PyTorch"
