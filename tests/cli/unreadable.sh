#!/usr/bin/env bash
# An input file that exists but cannot be read: COMMAND, given it as FLAG FILE, must
# exit 1 with one line naming it (checked by expect.sh). Root reads any file whatever
# its permission bits, so as root the command runs as the user nobody (setpriv).
#
#   unreadable.sh FLAG [--needs DATA_FILE]... -- COMMAND [ARG]...
set -uo pipefail
flag="$1"
shift
needs=()
while [ "$1" = "--needs" ]; do
  needs+=("$1" "$2")
  shift 2
done
[ "$1" = "--" ] && shift

dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"  # the file itself, not its folder, is what cannot be read
file="$dir/unreadable.txt"
echo "some text" >"$file" && chmod 000 "$file"
as=()
if [ "$(id -u)" -eq 0 ]; then
  command -v setpriv >/dev/null || { echo "skipped: running as root without setpriv (util-linux)"; exit 77; }
  as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
"$(dirname "$0")/expect.sh" 1 "unreadable.txt': cannot be read \\(Permission denied\\)" "${needs[@]}" -- \
  "${as[@]}" "$@" "$flag" "$file"
