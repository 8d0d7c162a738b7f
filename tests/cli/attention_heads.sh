#!/usr/bin/env bash
# The attention-head explorer's files: --png draws a PNG; --html writes one page with
# the weights inline, which a hostile prompt (</script>, quotes, an ampersand) cannot
# break out of; a --png that cannot be written is one line and leaves no file.
#
#   attention_heads.sh BIN_DIR
set -uo pipefail
bin="$1"
source "$(dirname "$0")/common.sh"
require_data gpt2/encoder.json gpt2/vocab.bpe
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
prompt='Jack said "</script><script>alert(1)</script>" & left.'
"$bin/ch03-07-attention-heads" --config configs/tiny-gqa.json --prompt "$prompt" --png "$dir/heads.png" --layer 1 \
  --html "$dir/page.html" >"$dir/out.log" 2>&1 || fail "exited $?: $(cat "$dir/out.log")"
cat "$dir/out.log"
grep -q "^Heatmaps: $dir/heads.png$" "$dir/out.log" || fail "no Heatmaps line"
grep -q "^Page: $dir/page.html " "$dir/out.log" || fail "no Page line"

/usr/bin/python3 - "$dir" "$prompt" <<'PY' || exit 1
import json, sys
import matplotlib.image
folder, prompt = sys.argv[1:]
image = matplotlib.image.imread(f"{folder}/heads.png")
assert image.shape[0] > 100 and image.shape[1] > 400, f"the PNG is {image.shape}"
assert image[..., :3].std() > 0.05, "the PNG is blank"
page = open(f"{folder}/page.html", encoding="utf-8").read()
assert page.count("</script>") == 1, "the prompt closed the page's script"
start = page.index("const MAPS = ") + len("const MAPS = ")
maps = json.loads(page[start:page.index(";\n", start)])
assert "".join(maps["tokens"]) == prompt, maps["tokens"]
assert maps["n_layers"] == 2 and maps["n_heads"] == 4 and maps["kv_group"] == [0, 0, 1, 1], maps["kv_group"]
t = len(maps["tokens"])
for layer in maps["layers"]:
    for head in layer:
        rows = head["weights"]
        assert [len(r) for r in rows] == list(range(1, t + 1))
        assert all(abs(sum(r) - 1) < 2e-3 for r in rows), "a row does not sum to 1"
print(f"OK: a {image.shape[1]}x{image.shape[0]} PNG; a page of {t} tokens, its script intact")
PY

# A --png that cannot be written (its folder would be a file): one line, exit 1,
# nothing written.
: >"$dir/a-file"
"$bin/ch03-07-attention-heads" --config configs/tiny.json --png "$dir/a-file/heads.png" >"$dir/bad.log" 2>"$dir/bad.err"
status=$?
[ "$status" -eq 1 ] || fail "an unwritable --png exited $status, expected 1"
[ "$(wc -l <"$dir/bad.err")" -eq 1 ] || fail "an unwritable --png: not one line on stderr: $(cat "$dir/bad.err")"
grep -q "^ch03-07-attention-heads: error: --png '$dir/a-file/heads.png': its folder '$dir/a-file' cannot be made" \
  "$dir/bad.err" || fail "$(cat "$dir/bad.err")"
[ -f "$dir/a-file" ] && [ ! -s "$dir/a-file" ] || fail "an unwritable --png changed the file in its way"
echo "OK: an unwritable --png is one line"
