#!/usr/bin/env bash
# Formats the C++ sources with clang-format 14 and the repository's .clang-format.
#   scripts/format.sh               format every tracked C/C++ file in place
#   scripts/format.sh --check       list the files that are not formatted (with the start of a
#                                   diff), exit 1; exit 0 when every file is formatted
#   scripts/format.sh [--check] FILE...   the same, for the files named
# clang-format lays some lines out differently from one major version to the next, so only 14.x
# is accepted (Debian 12's clang-format-14; scripts/install-deps.sh installs it). CLANG_FORMAT
# names another binary of that version. Nothing in the tree is vendored or generated (generated
# headers live in the build folder), so every tracked C/C++ file is formatted.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd -P)"

check=0
if [ "${1:-}" = "--check" ]; then
  check=1
  shift
fi
case "${1:-}" in
  -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "format.sh: unknown option $1 (usage: scripts/format.sh [--check] [FILE...])" >&2; exit 2 ;;
esac

cf="${CLANG_FORMAT:-}"
if [ -z "$cf" ]; then
  if command -v clang-format-14 >/dev/null; then cf=clang-format-14; else cf=clang-format; fi
fi
if ! command -v "$cf" >/dev/null; then
  echo "format.sh: needs clang-format 14 ($cf not found); install it with: sudo apt-get install clang-format-14" >&2
  exit 2
fi
version="$("$cf" --version)"
if ! grep -qE 'clang-format version 14\.' <<<"$version"; then
  echo "format.sh: needs clang-format 14.x, found: $(head -n1 <<<"$version") ($cf)" >&2
  echo "format.sh: other versions format some lines differently; install clang-format-14 or set CLANG_FORMAT" >&2
  exit 2
fi

files=()
if [ "$#" -gt 0 ]; then
  # As named, from the caller's folder (--style=file finds .clang-format from each file's path).
  for f in "$@"; do
    [ -f "$f" ] || { echo "format.sh: no such file: $f" >&2; exit 2; }
  done
  files=("$@")
else
  cd "$root"
  # git's list only when this tree is a checkout of its own (not an unpacked copy inside another).
  if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$root" ]; then
    while IFS= read -r -d '' f; do
      [ -f "$f" ] && files+=("$f") # skip files deleted in the work tree but not yet in the index
    done < <(git ls-files -z -- '*.c' '*.cc' '*.cpp' '*.cxx' '*.h' '*.hh' '*.hpp')
  else
    # A source tree without git (an unpacked release): the same files, build output left out.
    while IFS= read -r -d '' f; do files+=("${f#./}"); done < <(
      find . \( -path ./build -o -path ./.git -o -path ./.cache \) -prune -o -type f \
        \( -name '*.c' -o -name '*.cc' -o -name '*.cpp' -o -name '*.cxx' -o -name '*.h' -o -name '*.hh' \
        -o -name '*.hpp' \) -print0 | sort -z)
  fi
fi
if [ "${#files[@]}" -eq 0 ]; then
  echo "format.sh: no C/C++ files found" >&2
  exit 2
fi

if [ "$check" = 0 ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 16 -P 2 "$cf" --style=file -i
  echo "format.sh: formatted ${#files[@]} files with $cf (${version##*version })"
  exit 0
fi

# --dry-run -Werror reports the first pending change (layout or include order) of each file as
# "FILE:LINE:COL: error: code should be clang-formatted" and goes on with the other files. Each
# batch filters its own report, so the two parallel batches never interleave inside a line. A
# batch that fails without such a line (an unreadable .clang-format, a missing file) reports its
# messages prefixed with "!", and the check fails on them instead of passing.
unformatted=()
failures=()
while IFS= read -r f; do
  case "$f" in
    '!'*) failures+=("${f#!}") ;;
    *) unformatted+=("$f") ;;
  esac
done < <(
  printf '%s\0' "${files[@]}" | xargs -0 -n 16 -P 2 sh -c '
    out="$("$0" --style=file --dry-run -Werror --ferror-limit=1 "$@" 2>&1 >/dev/null)" && exit 0
    found="$(printf "%s\n" "$out" | sed -n "s/^\(.*\):[0-9][0-9]*:[0-9][0-9]*: error: code should be clang-formatted.*/\1/p")"
    if [ -n "$found" ]; then printf "%s\n" "$found"; else printf "%s\n" "$out" | sed -n "1,5s/^/!/p"; fi
    exit 0' "$cf" | sort -u)

if [ "${#failures[@]}" -gt 0 ]; then
  echo "format.sh: clang-format failed:" >&2
  printf '  %s\n' "${failures[@]}" >&2
  exit 2
fi
if [ "${#unformatted[@]}" -eq 0 ]; then
  echo "format.sh: all ${#files[@]} files are formatted (clang-format ${version##*version })"
  exit 0
fi
echo "format.sh: ${#unformatted[@]} of ${#files[@]} files are not formatted (run scripts/format.sh):"
printf '  %s\n' "${unformatted[@]}"
shown=0
for f in "${unformatted[@]}"; do
  [ "$shown" -lt 3 ] || break
  shown=$((shown + 1))
  echo "--- the start of what clang-format would change in $f:"
  "$cf" --style=file "$f" | diff -u --label "$f" --label "$f (formatted)" "$f" - | sed -n '3,22p' || true
done
exit 1
