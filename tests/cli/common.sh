# Sourced by the command-line test scripts (run from the project root).

# require_data FILE...: unless every fetched data file named exists, says which is
# missing and exits 77, which ctest reports as skipped (SKIP_RETURN_CODE). Call it
# before the test checks anything.
require_data() {
  local dir="${LLM_DATA_DIR:-$(pwd)/data}" f
  for f in "$@"; do
    [ -f "$dir/$f" ] || { echo "skipped: $dir/$f is missing; run scripts/fetch-data.sh"; exit 77; }
  done
}

# fail MESSAGE...: says which check failed and exits 1.
fail() { echo "FAILED: $*"; exit 1; }

# fresh_dir DIR: DIR, made empty for the test's files.
fresh_dir() { rm -rf "$1" && mkdir -p "$1" || fail "cannot make $1"; }
