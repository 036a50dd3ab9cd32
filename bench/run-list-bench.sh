#!/usr/bin/env bash
# Runs bench_list on a private local cluster: builds (release), starts a cluster in a temporary
# directory, creates the ConfigMaps, measures, and tears everything down.
#   bench/run-list-bench.sh [COUNT]      (default 100000)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
count="${1:-100000}"
cd "$root"
scripts/install-deps.sh >/dev/null
bin="$(scripts/build-kube.sh | tail -1)"
# FIELDSCOPE_BENCH_PRESET=ci measures the test command's optimised build instead of building
# the release one too (the figures in bench/README.md say which).
preset="${FIELDSCOPE_BENCH_PRESET:-release}"
cmake --preset "$preset" -DFIELDSCOPE_BUILD_BENCH=ON >/dev/null
cmake --build --preset "$preset" --target bench_list fieldscope
dir="$(mktemp -d)"
trap 'scripts/fieldscope-cluster stop "$dir" --purge >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
scripts/fieldscope-cluster start "$dir" --name bench --max-lifetime 3600 >/dev/null
build/$preset/bench/bench_list --kubeconfig "$dir/kubeconfig" --context bench --count "$count" --kubectl "$bin/kubectl" \
  --fieldscope build/$preset/app/fieldscope
