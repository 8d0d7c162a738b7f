#!/usr/bin/env bash
# serve's chat page in a real browser (tests/cli/chat_page.py): an answer streams in,
# Stop ends one and frees the server, and each request carries the turns before it; a
# classifier's page classifies a text.
#
#   chat_page.sh BIN_DIR PYTHON WORK_DIR
set -uo pipefail
bin="$1" python="$2" work="$3"
source "$(dirname "$0")/common.sh"
require_data gpt2/encoder.json gpt2/vocab.bpe
browser="$(command -v chromium || command -v chromium-browser || true)"
[ -n "$browser" ] || { echo "skipped: no chromium (scripts/test.sh installs Debian's chromium)"; exit 77; }
scratch_dir "$work"
source "$(dirname "$0")/serve_common.sh"
# GPT-2 small, untrained: slow enough (tens of tokens a second) to be seen streaming and stopped.
start_server "$work/serve.log"
timeout 180 "$python" tests/cli/chat_page.py "$browser" "$port" "$work/profile" || fail "the chat page"
stop_server "$work/serve.log"

# A classifier's page: a text typed, its label and both classes' probabilities shown.
make_classifier "$work"
start_server "$work/classifier.log" --checkpoint "$work/classifier/checkpoint.pt"
timeout 120 "$python" tests/cli/chat_page.py "$browser" "$port" "$work/profile-classify" classify ||
  fail "the classifier's page"
stop_server "$work/classifier.log"
echo "chat page: OK"
