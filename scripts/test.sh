#!/usr/bin/env bash
# The README's test command: installs what is missing (apt-get), builds the Kubernetes control
# plane (kube-apiserver, kube-controller-manager, kubectl and etcd from Go modules, see
# scripts/build-kube.sh) once (cached), configures and builds with the `ci` preset (warnings are
# errors) and runs every test: unit, integration against the real apiserver, GUI offscreen, the
# clang-format check; then clang-tidy + clazy (scripts/lint.sh) must find nothing, the core/kube
# unit tests run under ASan + UBSan and the Debian packages are built and checked
# (scripts/package.sh). Where the time went is printed at the end. Idempotent.
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
(cd "build/$preset" && ctest -j2 --output-on-failure "$@")
lap "ctest ($preset)"
# Static analysis of every translation unit of that build; any finding fails the run.
if [ "$#" -eq 0 ]; then
  scripts/lint.sh "build/$preset"
  lap "lint (clang-tidy + clazy)"
fi
# The whole suite also runs the unit tests of core/ and kube/ (and the fuzz corpus replays) under
# AddressSanitizer + UBSan: a second, GUI-less build. ASan's redzones make frames ~10x
# larger, so the main thread gets a 64 MiB stack for the depth-limit tests (512 levels); QtTest's
# gdb-based crash dump is off (it can hang instead of failing).
if [ "$#" -eq 0 ]; then
  cmake --preset asan-core >/dev/null
  cmake --build --preset asan-core -j"$(nproc)"
  lap "build (asan-core)"
  (ulimit -s 65536 && QTEST_DISABLE_STACK_DUMP=1 ctest --preset asan-core)
  lap "ctest (asan-core)"
fi
# The whole suite (no ctest arguments) also builds and checks the Debian packages; under CI
# (CI set, as .ci/run does) they are installed, run and removed again (scripts/package.sh).
if [ "$#" -eq 0 ]; then
  if [ -n "${CI:-}" ]; then scripts/package.sh --install; else scripts/package.sh; fi
  lap "packages"
fi
