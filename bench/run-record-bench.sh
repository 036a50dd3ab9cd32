#!/usr/bin/env bash
# A long recording's memory: starts bench/replay_server with COUNT (default 150,000) Pods, then
# `fieldscope record pods -A` into a fresh SQLite file for SECONDS (default 30, at least 5),
# sampling the recorder's whole resident memory every second (not growth: the process's own ~30
# MB included): the highest sample while the list is recorded and the last one, once it is
# absorbed (the heap given back), against the JSON the recorder's watcher keeps.
#   bench/run-record-bench.sh [COUNT] [SECONDS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
count="${1:-150000}"
seconds="${2:-30}"
if [ "$seconds" -lt 5 ]; then
  echo "run-record-bench.sh: SECONDS must be at least 5" >&2
  exit 2
fi
cd "$root"
scripts/install-deps.sh >/dev/null
cmake --preset release -DFIELDSCOPE_BUILD_BENCH=ON >/dev/null
cmake --build --preset release --target replay_server fieldscope
recorder=""
# shellcheck source=bench/lib/replayserver.sh
. bench/lib/replayserver.sh
# (set -e holds inside the trap too: nothing in it may stop the clean-up)
trap 'if [ -n "$recorder" ]; then kill "$recorder" 2>/dev/null || true; fi; replay_server_cleanup' EXIT
start_replay_server "$count"
json=$(curl -sS --fail -H "Authorization: Bearer bench" "$url/api/v1/pods" | wc -c)
XDG_CACHE_HOME="$dir/cache" XDG_DATA_HOME="$dir/data" XDG_CONFIG_HOME="$dir/config" \
  build/release/app/fieldscope record pods -A --db "$dir/history.db" --for "${seconds}s" \
  --kubeconfig "$dir/kubeconfig" >"$dir/record.out" 2>"$dir/record.err" &
recorder=$!
peak=0
last=0
samples=""
for _ in $(seq 1 "$((seconds - 1))"); do
  sleep 1
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$recorder/status" 2>/dev/null || true)
  if [ -z "$rss" ]; then
    echo "run-record-bench.sh: the recorder ended before its time" >&2
    cat "$dir/record.err" >&2
    exit 1
  fi
  if [ "$rss" -gt "$peak" ]; then peak=$rss; fi
  samples="$samples $rss"
  last=$rss
done
wait "$recorder" || { cat "$dir/record.err"; exit 1; }
recorder=""
tail -1 "$dir/record.err"
awk -v j="$json" -v p="$peak" -v l="$last" -v s="$samples" 'BEGIN {
  printf "list: %.1f MB of JSON (one GET of the whole list)\n", j / 1e6
  n = split(s, kb, " ")
  printf "recorder resident memory, MB each second:"
  for (i = 1; i <= n; ++i) printf " %.0f", kb[i] * 1024 / 1e6
  printf "\n"
  printf "the recorder process, whole (not growth): highest sample %.0f MB (%.2fx the JSON); last %.0f MB (%.2fx)\n",
         p * 1024 / 1e6, p * 1024 / j, l * 1024 / 1e6, l * 1024 / j }'
