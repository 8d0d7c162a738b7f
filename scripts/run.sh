#!/usr/bin/env bash
# Sets everything up, then runs the main job: the chapter-2 steps on the-verdict.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
for step in build/bin/ch02-01-simple-tokenizer build/bin/ch02-02-bpe-tokenizer build/bin/ch02-03-train-bpe \
            build/bin/ch02-04-data-sampling build/bin/ch02-05-embeddings; do
  echo
  echo "==> ${step#build/bin/}"
  "$step"
done
