# Sourced by the command-line test scripts (run from the project root).

# require_data FILE...: unless every fetched data file named exists, prints the marker
# that makes ctest report the test as skipped (never as passed) and exits.
require_data() {
  local dir="${LLM_DATA_DIR:-$(pwd)/data}" f
  for f in "$@"; do
    [ -f "$dir/$f" ] || { echo "LLM-SKIP: $dir/$f is missing; run scripts/fetch-data.sh"; exit 0; }
  done
}
