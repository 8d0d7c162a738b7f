#!/usr/bin/env bash
# One vocabulary of flags across the executables. The renamed flags are the table
# kRenamedFlags in HEADER ({"old", "new"} pairs). For every executable:
# - its --help exits 0 with a usage line, and lists no old name, no flag twice, no
#   cxxopts placeholder "arg" and no default written as 0.100000;
# - a lesson step (ch*) lists --seed unless it is in NO_SEED, and --device and
#   --threads unless it is in NO_DEVICE (comma-separated names): a step takes the
#   common flags it uses, and no other;
# - an old name given exits 2 with "--old is now --new".
#
#   flag_vocabulary.sh HEADER BIN_DIR NO_SEED NO_DEVICE EXE...
set -uo pipefail
header="$1" bin="$2" no_seed=",$3," no_device=",$4,"
shift 4
source "$(dirname "$0")/common.sh"

mapfile -t renamed < <(grep -oE '\{"[a-z0-9-]+", "[a-z0-9-]+"\}' "$header" | tr -d '{}",' )
[ "${#renamed[@]}" -ge 5 ] || fail "found ${#renamed[@]} renamed flags in $header; expected the table kRenamedFlags"
[ $# -ge 40 ] || fail "expected every executable, got $#"
steps=0

for exe in "$@"; do
  help="$("$bin/$exe" --help)" || fail "$exe --help exited $?"
  grep -q "^Usage:" <<<"$help" || fail "$exe --help has no line 'Usage:': $(head -3 <<<"$help")"
  # Option lines: "  -j, --threads N" or "      --seed N"; descriptions are indented further.
  flags="$(sed -nE 's/^  (-[a-zA-Z], |    )--([a-z0-9-]+).*/\2/p' <<<"$help")"
  [ -n "$flags" ] || fail "$exe --help lists no flags"
  twice="$(sort <<<"$flags" | uniq -d)"
  [ -z "$twice" ] || fail "$exe --help lists a flag twice: $twice"
  grep -qE -- '--[a-z0-9-]+ arg( |$)' <<<"$help" && fail "$exe --help names a value 'arg'"
  grep -E '[.][0-9]*00000\)' <<<"$help" && fail "$exe --help writes a default with trailing zeros (above)"
  for pair in "${renamed[@]}"; do
    read -r old new <<<"$pair"
    grep -qx -- "$old" <<<"$flags" && fail "$exe --help lists --$old, which is now --$new"
  done
  if [[ "$exe" == ch* ]]; then
    steps=$((steps + 1))
    for flag in seed device threads; do
      list="$no_device"
      [ "$flag" = seed ] && list="$no_seed"
      expected=yes
      [[ "$list" == *",$exe,"* ]] && expected=no
      listed=no
      grep -qx -- "$flag" <<<"$flags" && listed=yes
      [ "$listed" = "$expected" ] || fail "$exe --help: --$flag listed: $listed, expected: $expected"
    done
  fi
done
[ "$steps" -ge 40 ] || fail "expected the lesson steps among the executables, got $steps"

# The refusal is the same code in every executable (cli::run); each old name is tried
# on the first executable, and one on the last.
for exe in "$1" "${@: -1}"; do
  tried=("${renamed[@]}")
  [ "$exe" = "$1" ] || tried=("${renamed[0]}")
  for pair in "${tried[@]}"; do
    read -r old new <<<"$pair"
    message="$("$bin/$exe" "--$old" x 2>&1 >/dev/null)"
    code=$?
    [ $code -eq 2 ] || fail "$exe --$old exited $code, expected 2: $message"
    grep -qF -- "--$old is now --$new" <<<"$message" || fail "$exe --$old: expected a pointer to --$new, got: $message"
  done
done
echo "OK: $# executables ($steps lesson steps), ${#renamed[@]} renamed flags, one name per idea"
