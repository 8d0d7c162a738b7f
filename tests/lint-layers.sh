#!/usr/bin/env bash
# The library's layers (src/llm/CMakeLists.txt): a folder includes only itself and
# the folders below it, and only src/llm/cli/ knows the command line (cxxopts).
#
#   util -> nn -> io -> text -> attention -> model -> train -> reference -> cli
#                                                 model -> serve
set -uo pipefail
cd "$(dirname "$0")/../src/llm" || exit 1
declare -A allowed=(
  [util]="util"
  [nn]="util nn"
  [io]="util nn io"
  [text]="util nn io text"
  [attention]="util nn io attention"
  [model]="util nn io text attention model"
  [train]="util nn io text attention model train"
  [reference]="util nn io text attention model reference"
  [serve]="util nn io text attention model serve"
  [cli]="util nn io text attention model train reference cli"
)
bad=0
for folder in */; do
  folder="${folder%/}"
  [ -n "${allowed[$folder]:-}" ] || { echo "src/llm/$folder: a folder the layers do not name"; bad=1; continue; }
  while IFS=: read -r file line text; do
    used=$(echo "$text" | sed -E 's|.*"llm/([a-z_]+)/.*|\1|')
    case " ${allowed[$folder]} " in
      *" $used "*) ;;
      *) echo "src/llm/$file:$line: $folder includes $used, which is not below it: $text"; bad=1 ;;
    esac
  done < <(grep -rnH '#include "llm/' "$folder")
  if [ "$folder" != cli ] && hits=$(grep -rlE '#include <cxxopts' "$folder"); then
    echo "only src/llm/cli may include cxxopts: $hits"
    bad=1
  fi
done
[ "$bad" -eq 0 ] && echo "every include of src/llm follows the layers: OK"
exit "$bad"
