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

# require_data_of EXE: require_data for the data files the chapter executable EXE reads
# with its defaults.
require_data_of() {
  case "$(basename "$1")" in
    ch05-07-*) require_data tokenizers/llama3/tokenizer.json ;;  # the notebooks' chat prompts
    ch05-11-*) require_data tokenizers/qwen3/tokenizer.json ;;
    ch05-12-*) require_data tokenizers/gemma3/tokenizer.json ;;
    ch05-14-*) require_data the-verdict.txt tokenizers/qwen3/tokenizer.json tokenizers/llama3/tokenizer.json ;;
    ch02-*|ch05-*|generate) require_data the-verdict.txt gpt2/encoder.json gpt2/vocab.bpe ;;
    ch03-07-*|ch04-01-*|ch04-06-*|ch04-07-*|ch06-*) require_data gpt2/encoder.json gpt2/vocab.bpe ;;  # they tokenize a prompt
    ch07-01-*) require_data instruction-data.json ;;
    ch07-06-*) require_data instruction-data-with-preference.json gpt2/encoder.json gpt2/vocab.bpe ;;
    ch07-*) require_data instruction-data.json gpt2/encoder.json gpt2/vocab.bpe ;;
  esac
}

# fail MESSAGE...: says which check failed and exits 1.
fail() { echo "FAILED: $*"; exit 1; }

# fresh_dir DIR: DIR, made empty for the test's files.
fresh_dir() { rm -rf "$1" && mkdir -p "$1" || fail "cannot make $1"; }

# at_exit COMMAND: runs COMMAND when the script exits, before those given earlier (a
# server started after its folder was made stops before the folder goes); $exit_status
# holds the script's exit status. One EXIT trap runs them all, so none replaces another.
at_exit_commands=()
at_exit() {
  at_exit_commands=("$1" "${at_exit_commands[@]}")
  trap 'exit_status=$?; for c in "${at_exit_commands[@]}"; do eval "$c" || true; done' EXIT
}

# scratch_dir DIR: fresh_dir DIR, removed when the test passes or is skipped, so that
# the suite's runs do not pile up on the disk; a failed test keeps it to look at.
scratch_dir() {
  fresh_dir "$1"
  at_exit "if [ \"\$exit_status\" = 0 ] || [ \"\$exit_status\" = 77 ]; then rm -rf $(printf %q "$1"); fi"
}

# same_outputs PYTHON WHOLE RESUMED: the --save-outputs archives of a run and of the
# same run stopped and resumed hold equal weights, histories and accuracies.
same_outputs() {
  "$1" - "$2" "$3" <<'PY'
import sys, torch
whole, resumed = torch.load(sys.argv[1]), torch.load(sys.argv[2])
keys = [k for k in whole if k.startswith(("model/", "history/", "accuracy/"))]
bad = [k for k in keys if k not in resumed or not torch.equal(whole[k], resumed[k])]
print(f"{len(keys) - len(bad)} of {len(keys)} entries equal" + (f"; differ: {bad}" if bad else ""))
sys.exit(1 if bad or not keys else 0)
PY
}
