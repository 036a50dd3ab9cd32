#!/usr/bin/env bash
# The README's test command: installs what is missing (apt-get), builds the Kubernetes control
# plane (kube-apiserver, kube-controller-manager, kubectl and etcd from Go modules, see
# scripts/build-kube.sh) once (cached), configures and builds with the `ci` preset (warnings are
# errors) and runs every test: unit, integration against the real apiserver, GUI offscreen, the
# clang-format check; clang-tidy + clazy (scripts/lint.sh) must find nothing and the ASan + UBSan
# build is made meanwhile; then the core/kube unit tests run under ASan + UBSan and the Debian
# packages are built and checked (scripts/package.sh). Where the time went is printed at the end.
# Idempotent.
#   scripts/test.sh [extra ctest arguments, e.g. -L unit]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# Where the time goes, printed at the end (and on failure): set-up, builds, tests, packages.
timings=()
step_start=0
lap() { timings+=("$(printf '%-34s %5d s' "$1" $((SECONDS - step_start)))"); step_start=$SECONDS; }
report_timings() {
  echo "== scripts/test.sh timings =="
  printf '  %s\n' "${timings[@]}"
  echo "  total                              $(printf '%5d' "$SECONDS") s"
}
trap report_timings EXIT
scripts/install-deps.sh
lap "dependencies (apt)"
scripts/build-kube.sh >/dev/null
lap "control plane (build-kube)"
preset="${FIELDSCOPE_PRESET:-ci}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
lap "build ($preset)"
export QT_QPA_PLATFORM=offscreen
# The whole suite (no ctest arguments) also lints every translation unit of that build (any finding
# fails the run) and runs the unit tests of core/ and kube/ (and the fuzz corpus replays) under
# AddressSanitizer + UBSan, from a second, GUI-less build. The lint and that build need no cluster:
# they run beside the ctest stage, at the lowest CPU priority, on the cores the tests leave idle
# (measured: the ctest stage keeps 0.74 of 2 cores busy; most tests wait on the API server). On a
# fresh machine that is ~20 minutes of compiling and analysing, so this is where the time is won.
background_pid=""
if [ "$#" -eq 0 ]; then
  background_log="build/$preset-beside-ctest.log"
  background_pidfile="build/$preset-beside-ctest.pid"
  mkdir -p build
  # A run killed outright (SIGKILL) left its lint and ASan build running: stop them first.
  if [ -f "$background_pidfile" ]; then
    kill -- -"$(cat "$background_pidfile")" 2>/dev/null || true
    rm -f "$background_pidfile"
  fi
  cmake --preset asan-core >/dev/null
  # In a session of its own (setsid: a background job of this script is no group leader, so it
  # becomes one), so that a failed ctest stage can stop it whole; idle CPU and I/O priority, so
  # the tests' API server and etcd go first.
  PRESET="$preset" setsid bash -c '
    started=$SECONDS
    nice -n 19 ionice -c3 scripts/lint.sh "build/$PRESET" || { echo "lint failed"; exit 1; }
    echo "lint (clang-tidy + clazy) took $((SECONDS - started)) s"
    started=$SECONDS
    nice -n 19 ionice -c3 cmake --build --preset asan-core -j"$(nproc)" || { echo "the asan-core build failed"; exit 2; }
    echo "build (asan-core) took $((SECONDS - started)) s"' >"$background_log" 2>&1 &
  background_pid=$!
  echo "$background_pid" >"$background_pidfile"
  trap 'kill -- -$background_pid 2>/dev/null && echo "stopped the lint and ASan build beside ctest (their output so far: $background_log)"; rm -f "$background_pidfile"; report_timings' EXIT
fi
(cd "build/$preset" && ctest -j2 --output-on-failure "$@")
lap "ctest ($preset)"
if [ -n "$background_pid" ]; then
  background_rc=0
  wait "$background_pid" || background_rc=$?
  rm -f "$background_pidfile"
  trap report_timings EXIT
  if [ "$background_rc" -ne 0 ]; then
    # The lint's findings (or the build's errors) as they were printed.
    cat "$background_log"
    exit 1
  fi
  sed -n '/^lint: /p;/ took /p' "$background_log"
  lap "lint + asan build, after ctest"
  # ASan's redzones make frames ~10x larger, so the main thread gets a 64 MiB stack for the
  # depth-limit tests (512 levels); QtTest's gdb-based crash dump is off (it can hang instead of
  # failing).
  (ulimit -s 65536 && QTEST_DISABLE_STACK_DUMP=1 ctest --preset asan-core)
  lap "ctest (asan-core)"
fi
# The whole suite (no ctest arguments) also builds and checks the Debian packages; under CI
# (CI set, as .ci/run does) they are installed, run and removed again (scripts/package.sh).
if [ "$#" -eq 0 ]; then
  if [ -n "${CI:-}" ]; then scripts/package.sh --install; else scripts/package.sh; fi
  lap "packages"
fi
