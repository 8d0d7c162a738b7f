#!/usr/bin/env bash
# Sets everything up, then runs the main job: trains a small GPT on the-verdict (about
# a minute on 2 cores; configs/train-quick.json), samples text from it, and says where
# the checkpoint, metrics and plot are. Arguments go to the trainer, e.g.
#   scripts/run.sh --data moby-dick.txt --num-epochs 2     (a longer run)
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the main job runs (ch05-02-train, generate); test.sh builds the rest.
scripts/setup.sh --python-later main-job

# The Python packages (matplotlib for the loss plot, PyTorch for the tests) install
# while it trains, at the lowest priority, and the plot is drawn once they are in.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
nice -n 19 scripts/install-packages.sh > "$log" 2>&1 &
packages=$!

echo
echo "==> Training (configs/train-quick.json $*)"
trained=0
build/bin/ch05-02-train --train-config configs/train-quick.json --out-dir runs/quick --overwrite --no-plot "$@" ||
  trained=$?

# Whatever the training did, apt is not left running on its own (it holds dpkg's lock).
wait "$packages" || { cat "$log"; echo "run: installing the Python packages failed (above)" >&2; exit 1; }
grep -E '^setup:|newly installed' "$log" || true
[ "$trained" -eq 0 ] || exit "$trained"
plot=runs/quick/losses.png
drawn="$(mktemp runs/quick/.losses.XXXXXX.png)"
if /usr/bin/python3 scripts/plot_losses.py runs/quick/metrics.jsonl "$drawn"; then
  mv "$drawn" "$plot"
else
  rm -f "$drawn"
fi

echo
echo "==> Sampling from the trained model (temperature 0.8, top-k 20, seed 123)"
build/bin/generate --checkpoint runs/quick/checkpoint.pt --prompt "Every effort moves you" \
  --max-new-tokens 40 --temperature 0.8 --top-k 20 --seed 123

echo
echo "Checkpoint: runs/quick/checkpoint.pt   (continue: build/bin/ch05-02-train --resume runs/quick/checkpoint.pt --num-epochs 40)"
echo "Metrics:    runs/quick/metrics.jsonl"
if [ -f "$plot" ]; then echo "Plot:       $plot"; fi
echo "More text:  build/bin/generate --checkpoint runs/quick/checkpoint.pt --prompt \"...\" --temperature 1 --top-k 40"
