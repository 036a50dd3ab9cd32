#!/usr/bin/env bash
# Runs bench_discovery: builds (release) fieldscope, kubectl and the bench, then times discovery
# against a loopback server of GROUPS API groups. Nothing else needs to be running.
#   bench/run-discovery-bench.sh [GROUPS] [GROUP_DELAY_MS]      (default 3000 0)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/install-deps.sh >/dev/null
bin="$(scripts/build-kube.sh | tail -1)"
cmake --preset release -DFIELDSCOPE_BUILD_BENCH=ON >/dev/null
cmake --build --preset release --target fieldscope bench_discovery
build/release/bench/bench_discovery --fieldscope build/release/app/fieldscope --kubectl "$bin/kubectl" \
  --groups "${1:-3000}" --group-delay-ms "${2:-0}"
