#!/usr/bin/env bash
# The compiler launcher of the precompiled header's target (cmake/FieldscopePch.cmake):
#   fieldscope-pch-sum.sh SOURCE_DIR COMPILER ARGS...
# Runs the compile. When it built the header (-x c++-header), writes HEADER.gch.sum beside it: a
# digest of what the header was built from (the arguments, with the clone's and the build
# folder's paths taken out, and the content of every header the compiler read, from its
# dependency file). ccache hashes that file instead of the .gch (CCACHE_PCH_EXTSUM, set by the
# presets): GCC's .gch differs from one build to the next even from the same input, so without it
# a new build folder or a second clone would miss the cache for every unit that uses the header.
set -euo pipefail
src="$1"
shift
"$@"
out="" depfile="" header=0 prev=""
for a in "$@"; do
  case "$prev" in
    -o) out="$a" ;;
    -MF) depfile="$a" ;;
  esac
  [ "$a" = "c++-header" ] && header=1
  prev="$a"
done
[ "$header" = 1 ] && [ -n "$out" ] && [ -n "$depfile" ] && [ -f "$depfile" ] || exit 0
build="$(pwd -P)"
{
  for a in "$@"; do
    a="${a//"$build"/<build>}"
    printf '%s\n' "${a//"$src"/<source>}"
  done
  # The dependency file: "target: dep dep \" lines; the header itself first, then what it read.
  # CMake's wrapper names our header by its absolute path, which is the clone's.
  sed -e '1s/^[^:]*://' -e 's/\\$//' "$depfile" | tr ' ' '\n' | sed '/^$/d' | while read -r dep; do
    case "$(realpath "$dep")" in
      "$src"/*) sed -e "s|$build|<build>|g" -e "s|$src|<source>|g" "$dep" | sha256sum | cut -c1-64 ;;
      *) sha256sum <"$dep" | cut -c1-64 ;;
    esac
  done
} | sha256sum | cut -c1-64 >"$out.sum.tmp"
mv -f "$out.sum.tmp" "$out.sum"
