#!/usr/bin/env bash
# The README's test command: installs what is missing (apt-get), builds kube-apiserver 1.20.2
# once (cached), configures and builds with the `ci` preset (warnings are errors) and runs every
# test: unit, integration against the real apiserver, GUI offscreen. Idempotent.
#   scripts/test.sh [extra ctest arguments, e.g. -L unit]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/install-deps.sh
scripts/build-kube.sh >/dev/null
preset="${FIELDSCOPE_PRESET:-ci}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
export QT_QPA_PLATFORM=offscreen
cd "build/$preset"
exec ctest -j2 --output-on-failure "$@"
