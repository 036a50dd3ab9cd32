#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang-14, ASan + UBSan) and runs each one for
# SECONDS (default 600) over its seed corpus (fuzz/corpus/<target>, never written to; new inputs
# go to build/fuzz/corpus-work/<target>). Prints executions, coverage and findings per target;
# exits 1 if any target found a crash (the input is in build/fuzz/findings/).
#   scripts/fuzz.sh [SECONDS] [TARGET...]      FUZZ_JOBS=2 runs two targets at a time
# Targets: kubeconfig yaml ownership listwatch status discovery history_jsonl drafts lesson audit stored_row
#   json_index
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
seconds="${1:-600}"
shift || true
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(kubeconfig yaml ownership listwatch status discovery history_jsonl drafts lesson audit stored_row json_index)
jobs="${FUZZ_JOBS:-1}"

scripts/install-deps.sh >/dev/null
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}"

work="build/fuzz/corpus-work"; findings="build/fuzz/findings"; logs="build/fuzz/logs"
mkdir -p "$work" "$findings" "$logs"
run_one() {
  local t="$1"
  mkdir -p "$work/$t"
  # -timeout: one input may take at most 10 s (a hang is a finding); -rss_limit_mb: 2 GiB.
  nice -n 10 "build/fuzz/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/$t-" "$work/$t" "fuzz/corpus/$t" >"$logs/$t.log" 2>&1 || true
}
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

failed=0
printf '%-14s %12s %10s %8s %8s  %s\n' target executions exec/s cov features findings
for t in "${targets[@]}"; do
  log="$logs/$t.log"
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -1)
  rate=$(grep 'stat::average_exec_per_sec:' "$log" | awk '{print $2}' | tail -1)
  cov=$(grep -o ' cov: [0-9]*' "$log" | awk '{print $2}' | tail -1)
  ft=$(grep -o ' ft: [0-9]*' "$log" | awk '{print $2}' | tail -1)
  found=$(ls "$findings" 2>/dev/null | grep -c "^$t-" || true)
  printf '%-14s %12s %10s %8s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$found"
  if [ "$found" -gt 0 ] || grep -q 'ERROR: \(AddressSanitizer\|libFuzzer\)\|runtime error:' "$log"; then
    failed=1
    grep -m3 'ERROR:\|runtime error:\|SUMMARY:' "$log" | sed "s/^/  $t: /"
  fi
done
exit "$failed"
