#!/usr/bin/env bash
# An installed copy works on its own, wherever it is moved.
#
#   install.sh setup  BUILD_DIR SOURCE_DIR WORK_DIR   cmake --install into WORK_DIR/first,
#                                                     move it to WORK_DIR/moved, and check
#                                                     that no installed file names the
#                                                     source or the build tree
#   install.sh run    SOURCE_DIR WORK_DIR COMMAND...  run WORK_DIR/moved/bin/COMMAND from
#                                                     WORK_DIR, with the source tree (and
#                                                     the build tree inside it) hidden
#                                                     behind an empty folder
#
# The source tree is hidden in a private mount namespace (unshare -m, as root). Where
# that is not allowed, the command runs without it, and the test says so.
set -uo pipefail
fail() { echo "FAIL: $*"; exit 1; }

mode="$1"
shift
case "$mode" in
  setup)
    build="$1" source="$2" work="$3"
    rm -rf "$work" && mkdir -p "$work" || fail "cannot make $work"
    cmake --install "$build" --prefix "$work/first" >"$work/install.log" 2>&1 ||
      { tail -n 5 "$work/install.log"; fail "cmake --install failed"; }
    mv "$work/first" "$work/moved" || fail "cannot move the installed copy"
    for f in configs/tiny.json configs/train-quick.json data/the-verdict.txt data/SHA256SUMS scripts/plot_losses.py; do
      [ -f "$work/moved/share/libtorch-llm/$f" ] || fail "the install lacks share/libtorch-llm/$f"
    done
    n=$(find "$work/moved/bin" -type f | wc -l)
    [ "$n" -ge 20 ] || fail "only $n executables were installed"
    # Neither tree's path may be compiled into what was installed.
    for tree in "$(realpath "$source")" "$(realpath "$build")"; do
      if hits=$(grep -rlF "$tree" "$work/moved"); then
        fail "installed files name '$tree': $(echo "$hits" | head -n 3 | tr '\n' ' ')"
      fi
    done
    echo "installed $n executables into $work/first, moved to $work/moved; no file names the source or build tree: OK"
    ;;
  run)
    source="$(realpath "$1")" work="$2"
    shift 2
    exe="$work/moved/bin/$1"
    shift
    [ -x "$exe" ] || fail "$exe is not installed (run the install:setup test first)"
    cd "$work" || fail "cannot enter $work"
    empty="$work/empty"
    mkdir -p "$empty"
    run=(env -u LLM_HOME -u LLM_DATA_DIR "$exe" "$@")
    if unshare -m true 2>/dev/null; then
      echo "running with $source hidden: ${run[*]}"
      unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$empty" "$source" "${run[@]}"
    else
      echo "running (unshare -m is not allowed here, so $source stays visible): ${run[*]}"
      "${run[@]}"
    fi
    ;;
  *) fail "unknown mode '$mode'" ;;
esac
