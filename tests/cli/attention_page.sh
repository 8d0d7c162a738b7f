#!/usr/bin/env bash
# The explorer's page in a real browser: headless Chromium opens the page that
# ch03-07-attention-heads wrote, selects a layer, heads and a token through the URL
# fragment, and the rendered DOM must show the prompt's tokens as axis labels, one
# cell per visible weight, the selected heads pressed and grouped by key/value group,
# and what the token attends to; then the overlaid view; then a screenshot, which must
# not be blank.
#
#   attention_page.sh BIN_DIR
set -uo pipefail
bin="$1"
source "$(dirname "$0")/common.sh"
require_data gpt2/encoder.json gpt2/vocab.bpe
browser="$(command -v chromium || command -v chromium-browser || true)"
[ -n "$browser" ] || { echo "skipped: no chromium (scripts/test.sh installs Debian's chromium)"; exit 77; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
prompt="Every effort moves you forward"
"$bin/ch03-07-attention-heads" --config configs/tiny-gqa.json --prompt "$prompt" --html "$dir/page.html" \
  >"$dir/out.log" 2>&1 || fail "ch03-07-attention-heads exited $?: $(cat "$dir/out.log")"

# Headless, without a profile of the user's, GPU or network; as root it needs --no-sandbox.
chrome() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$dir/profile" \
    --window-size=1280,900 "$@" 2>>"$dir/browser.log"
}
chrome --dump-dom "file://$dir/page.html#layer=1&head=2&token=3" >"$dir/side.html" || fail "chromium exited $?"
chrome --dump-dom "file://$dir/page.html#layer=0&head=1,3&view=overlay" >"$dir/overlay.html" || fail "chromium exited $?"
chrome --screenshot="$dir/shot.png" "file://$dir/page.html#layer=1&head=0,1,2,3" >/dev/null || fail "chromium exited $?"

/usr/bin/python3 - "$dir" <<'PY' || exit 1
import html.parser, sys
import matplotlib.image

class Dom(html.parser.HTMLParser):
    """The elements of the rendered page, with their attributes and text."""
    def __init__(self, text):
        super().__init__()
        self.elements, self.open = [], []
        self.feed(text)
    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": dict(attrs), "text": "", "parents": list(self.open)}
        self.elements.append(element)
        if tag not in ("meta", "link", "br", "input"):
            self.open.append(element)
    def handle_endtag(self, tag):
        while self.open:
            if self.open.pop()["tag"] == tag:
                break
    def handle_data(self, data):
        for element in self.open:
            element["text"] += data
    def find(self, tag=None, cls=None, **attrs):
        return [e for e in self.elements
                if (tag is None or e["tag"] == tag)
                and (cls is None or cls in e["attrs"].get("class", "").split())
                and all(e["attrs"].get(k.replace("_", "-")) == v for k, v in attrs.items())]

folder = sys.argv[1]
tokens = ["Every", "effort", "moves", "you", "forward"]
t = len(tokens)
side = Dom(open(f"{folder}/side.html", encoding="utf-8").read())
panels = side.find("section", cls="panel")
assert [(p["attrs"].get("data-layer"), p["attrs"].get("data-head")) for p in panels] == [("1", "2")], \
    f"the panels shown: {[p['attrs'] for p in panels]}"
inside = lambda e, panel: any(parent is panel for parent in e["parents"])
rows = [e["text"] for e in side.find("text", cls="row-label") if inside(e, panels[0])]
cols = [e["text"] for e in side.find("text", cls="col-label") if inside(e, panels[0])]
assert rows == tokens and cols == tokens, f"axis labels {rows} / {cols}"
cells = [e for e in side.find("rect", cls="cell") if inside(e, panels[0])]
assert len(cells) == t * (t + 1) // 2, f"{len(cells)} cells, expected {t * (t + 1) // 2}"
assert len(side.find("rect", cls="masked")) == t * (t - 1) // 2
pressed = [b["attrs"]["data-head"] for b in side.find("button", cls="head", aria_pressed="true")]
assert pressed == ["2"], f"pressed heads {pressed}"
assert side.find("select", id="layer") and [o for o in side.find("option") if o["attrs"].get("value") == "1"]
assert "kv group 1" in panels[0]["text"], panels[0]["text"]
strip = [s["text"] for s in side.find("span", cls="token")]
assert strip == tokens, f"the token strip {strip}"
focus = side.find("span", cls="focus")
assert [f["attrs"]["data-index"] for f in focus] == ["3"], "token 3 is not the focused one"
note = side.find("div", id="focus-note")[0]["text"]
assert note.startswith("\u201cyou\u201d attends to ") and "most attended by forward" in note, note
assert len([e for e in side.find("rect", cls="cross") if inside(e, panels[0])]) == 2, "no row and column for token 3"
groups = [g["attrs"]["data-kv-group"] for g in side.find("span", cls="kv-group")]
assert groups == ["0", "1"], f"the key/value groups of the head buttons: {groups}"
summary = side.find("tr", cls="selected")
assert [r["attrs"]["data-head"] for r in summary] == ["2"], "the summary table does not mark head 2"

overlay = Dom(open(f"{folder}/overlay.html", encoding="utf-8").read())
panels = overlay.find("section", cls="panel")
assert [(p["attrs"].get("data-layer"), p["attrs"].get("data-heads")) for p in panels] == [("0", "1,3")], \
    f"the overlaid panels {[p['attrs'] for p in panels]}"
assert len(overlay.find("rect", cls="cell")) == t * (t + 1) // 2
assert [b["attrs"]["data-head"] for b in overlay.find("button", cls="head", aria_pressed="true")] == ["1", "3"]

image = matplotlib.image.imread(f"{folder}/shot.png")[..., :3]
colours = {tuple(p) for p in (image[::7, ::7] * 255).astype(int).reshape(-1, 3).tolist()}
assert image.shape[:2] == (900, 1280), f"screenshot {image.shape}"
assert image.std() > 0.05 and len(colours) > 20, f"the screenshot is blank: std {image.std():.3f}, {len(colours)} colours"
print(f"OK: layer 1 head 2 with {t} token labels and {len(cells)} cells; the overlay of heads 1 and 3;",
      f"a screenshot of {len(colours)} colours")
PY
