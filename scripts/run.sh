#!/usr/bin/env bash
# The README's run command: installs what is missing, builds, and launches Fieldscope.
# With no --context/--kubeconfig the app starts (or reuses) the local sandbox cluster.
#   scripts/run.sh [fieldscope arguments, e.g. --context prod]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/install-deps.sh
scripts/build-kube.sh >/dev/null
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)"
exec build/release/app/fieldscope "$@"
