#!/usr/bin/env bash
# Static analysis: clang-tidy (checks in .clang-tidy) and clazy (Qt checks, level0 + level1; the
# list is in scripts/lib/lint.py) on every product, test, bench and fuzz translation unit of the
# `ci` build, two at a time, both in one clang-tidy process (scripts/lib/lintscope.cpp says how).
# Generated files (moc_*, qrc_*, *_autogen) are skipped.
# Prints every finding and exits non-zero if there is one. Results are cached per translation
# unit under ~/.cache/fieldscope/lint (keyed by the preprocessed source, the configuration and the
# tool versions), so a rerun only analyses what changed. Called by scripts/test.sh after the build.
#   scripts/lint.sh [build folder, default build/ci]
# Silence a finding only with a reason: `// NOLINT(check-name): why` (clazy: `// clazy:exclude=check`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/ci}"
if [ ! -f "$build/compile_commands.json" ]; then
  (cd "$root" && cmake --preset ci >/dev/null)
fi
# The tests include their moc output (`#include "tst_x.moc"`): generate it if the tree is not built.
if [ -z "$(find "$build" -name '*.moc' -print -quit)" ]; then
  mapfile -t autogen < <(ninja -C "$build" -t targets all |
    sed -n 's/^\([^/:][^:]*_autogen\): phony$/\1/p' | grep -v CMakeFiles)
  ninja -C "$build" "${autogen[@]}" >/dev/null
fi
exec python3 "$root/scripts/lib/lint.py" "$root" "$build"
