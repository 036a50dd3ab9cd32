#!/usr/bin/env bash
# The list at the scale of the biggest clusters: starts bench/replay_server with COUNT Pods (one Pod
# recorded from a real apiserver, multiplied), then runs bench_list --resource pods against it:
# Fieldscope's list-and-index against one curl GET of the whole list and kubectl get pods -A -o
# json, with resident memory; then bench_window: the app's window listing the same Pods, with
# watch events. Builds what it needs; nothing else needs to be running.
#   bench/run-scale-bench.sh [COUNT]      (default 150000)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
count="${1:-150000}"
cd "$root"
scripts/install-deps.sh >/dev/null
bin="$(scripts/build-kube.sh | tail -1)"
# FIELDSCOPE_BENCH_PRESET=ci measures the test command's optimised build instead of building
# the release one too (the figures in bench/README.md say which).
preset="${FIELDSCOPE_BENCH_PRESET:-release}"
cmake --preset "$preset" -DFIELDSCOPE_BUILD_BENCH=ON >/dev/null
cmake --build --preset "$preset" --target bench_list replay_server fieldscope bench_window
# shellcheck source=bench/lib/replayserver.sh
. bench/lib/replayserver.sh
trap replay_server_cleanup EXIT
start_replay_server "$count"
build/$preset/bench/bench_list --kubeconfig "$dir/kubeconfig" --context replay --resource pods --count "$count" \
  --kubectl "$bin/kubectl" --fieldscope build/$preset/app/fieldscope
# The window at the same scale: its own replay server in the process (bench/replaypods.h).
build/$preset/bench/bench_window --pods "$count" --pod tests/data/history/pod.json 2>&1 \
  | grep -v -e '^QStandardPaths' -e 'propagateSizeHints' -e '^fieldscope\.'
