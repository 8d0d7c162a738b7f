#!/usr/bin/env bash
# Checks that the suite's tolerances are narrow enough: each mutation below is a real
# bug the size of a float rounding difference or smaller, applied to a copy of the
# sources; the copy is built and the tests that cover it must fail. Not part of CI
# (each mutation rebuilds the library and runs its tests: about 3 minutes each on 2
# cores after a first full build of the copy).
#
#   scripts/mutation-check.sh [BUILD_DIR]    (default: a fresh folder under /tmp)
#   ONLY="0 3" scripts/mutation-check.sh     (only these mutations, counted from 0)
#
# Exit 0 when every mutation made a test fail; 1 names the mutations that survived.
set -uo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
copy="$(mktemp -d /tmp/llm-mutation.XXXXXX)"
build="${1:-$copy/build}"
trap 'git -C "$root" worktree remove --force "$copy/src" >/dev/null 2>&1; rm -rf "$copy"' EXIT
git worktree add --detach "$copy/src" HEAD >/dev/null || exit 1
[ -e data ] && ln -sfn "$root/data" "$copy/src/data"

# Each mutation: a name, the file, the text replaced (a fixed string), the text put
# in, and the ctest regex of the tests that must catch it.
names=("mask diagonal shifted" "LayerNorm eps 1e-5 -> 1e-6" "1/sqrt(d_k) scale dropped" "early EOS stop"
       "DPO beta 1% off" "DPO response mask not shifted" "DPO reference with autograd" "DPO prompt mask one short")
files=(src/llm/attention/scaled_dot_product.cpp src/llm/nn/layers.h src/llm/attention/scaled_dot_product.cpp
       src/llm/model/generate.cpp src/llm/train/dpo.cpp src/llm/train/dpo.cpp src/llm/train/dpo.cpp
       src/llm/text/preference_data.cpp)
froms=("/*diagonal=*/1" "double eps = 1e-5;" "scores / std::sqrt(static_cast<double>(k.size(-1)))"
       "(next == *options.eos_id()).all().item<bool>()" "-torch::log_sigmoid(beta * logits)"
       "const auto selected = kept.slice(1, 1);" "torch::NoGradGuard no_grad;
    reference_both" "static_cast<int64_t>(item.prompt.size()) + 2")
tos=("/*diagonal=*/2" "double eps = 1e-6;" "scores"
     "((next == *options.eos_id()).any().item<bool>() || idx.size(1) > 4)" "-torch::log_sigmoid(beta * 1.01 * logits)"
     "const auto selected = kept.slice(1, 0, -1);" "reference_both" "static_cast<int64_t>(item.prompt.size()) + 1")
tests=("^attention:" "^model:" "^attention:" "^model:" "^dpo:" "^dpo:" "^dpo:" "^dpo:")

cmake -S "$copy/src" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
survived=()
for i in ${ONLY:-"${!names[@]}"}; do
  name="${names[$i]}" target="$copy/src/${files[$i]}"
  cp "$target" "$target.orig"
  FROM="${froms[$i]}" TO="${tos[$i]}" /usr/bin/python3 -c '
import os, pathlib, sys
p = pathlib.Path(sys.argv[1]); s = p.read_text()
p.write_text(s.replace(os.environ["FROM"], os.environ["TO"], 1))' "$target"
  if cmp -s "$target" "$target.orig"; then
    echo "mutation '$name': the text no longer appears in ${files[$i]}; update this script"
    survived+=("$name (not applied)")
    continue
  fi
  if ! cmake --build "$build" -j2 >/dev/null 2>&1; then
    echo "mutation '$name': does not compile"
    survived+=("$name (not compiled)")
  elif (cd "$build" && ctest -R "${tests[$i]}" -j2 >/dev/null 2>&1); then
    echo "mutation '$name': SURVIVED (every test of ${tests[$i]} passed)"
    survived+=("$name")
  else
    echo "mutation '$name': caught"
  fi
  mv "$target.orig" "$target"
done
if [ ${#survived[@]} -gt 0 ]; then
  printf 'survived: %s\n' "${survived[@]}"
  exit 1
fi
echo "every mutation was caught"
