#!/usr/bin/env bash
# Runs bench_discovery: builds (release) fieldscope, kubectl and the bench, then times discovery
# against a loopback server of GROUPS API groups. Nothing else needs to be running.
#   bench/run-discovery-bench.sh [GROUPS] [GROUP_DELAY_MS]      (default 3000 0)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/install-deps.sh >/dev/null
bin="$(scripts/build-kube.sh | tail -1)"
# FIELDSCOPE_BENCH_PRESET=ci measures the test command's optimised build instead of building
# the release one too (the figures in bench/README.md say which).
preset="${FIELDSCOPE_BENCH_PRESET:-release}"
cmake --preset "$preset" -DFIELDSCOPE_BUILD_BENCH=ON >/dev/null
cmake --build --preset "$preset" --target fieldscope bench_discovery
build/$preset/bench/bench_discovery --fieldscope build/$preset/app/fieldscope --kubectl "$bin/kubectl" \
  --groups "${1:-3000}" --group-delay-ms "${2:-0}"
