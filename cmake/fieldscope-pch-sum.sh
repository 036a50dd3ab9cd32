#!/usr/bin/env bash
# The compiler launcher of the precompiled header's target (cmake/FieldscopePch.cmake):
#   fieldscope-pch-sum.sh SOURCE_DIR COMPILER ARGS...
# Runs the compile. When it builds the header (-x c++-header), writes HEADER.gch.sum beside it: a
# digest of what the header was built from (the arguments, with the clone's and the build
# folder's paths taken out, and the content of every file the compiler read, from its dependency
# file). ccache hashes that file instead of the .gch (CCACHE_PCH_EXTSUM, set by the presets):
# GCC's .gch differs from one build to the next even from the same input, so without it a new
# build folder or a second clone would miss the cache for every unit that uses the header.
# The compiler itself is not in the digest: ccache keys each unit on it already.
set -euo pipefail
src="$(cd "$1" && pwd -P)"
shift
out="" depfile="" header=0 prev=""
for a in "$@"; do
  case "$prev" in
    -o) out="$a" ;;
    -MF) depfile="$a" ;;
  esac
  [ "$a" = "c++-header" ] && header=1
  prev="$a"
done
if [ "$header" = 0 ]; then
  exec "$@"
fi
[ -n "$out" ] && [ -n "$depfile" ] || {
  echo "fieldscope-pch-sum: a header compile without -o or -MF: $*" >&2
  exit 1
}
# No digest of an older header may outlive it: without one, ccache hashes the .gch (a miss, never
# a wrong object).
rm -f "$out.sum"
"$@"
[ -f "$depfile" ] || {
  echo "fieldscope-pch-sum: the compiler wrote no dependency file $depfile" >&2
  exit 1
}
build="$(pwd -P)"
# A clone's own file with its paths taken out (CMake's wrapper names our header by absolute path).
normalised() {
  local text
  text="$(
    cat "$1"
    printf x
  )"
  text="${text%x}" # command substitution would drop the file's last newlines
  text="${text//"$build"/<build>}"
  printf '%s' "${text//"$src"/<source>}"
}
{
  for a in "$@"; do
    a="${a//"$build"/<build>}"
    printf '%s\n' "${a//"$src"/<source>}"
  done
  # The dependency file: "target: dep dep \" lines, a space inside a name written "\ ".
  sed -e '1s/^[^:]*://' -e 's/\\$//' -e 's/\\ /\x01/g' "$depfile" | tr ' ' '\n' | sed '/^$/d' | tr '\001' ' ' |
    while IFS= read -r dep; do
      case "$(realpath "$dep")" in
        "$src"/* | "$build"/*) normalised "$dep" | sha256sum | cut -c1-64 ;;
        *) sha256sum <"$dep" | cut -c1-64 ;;
      esac
    done
} | sha256sum | cut -c1-64 >"$out.sum.tmp"
mv -f "$out.sum.tmp" "$out.sum"
