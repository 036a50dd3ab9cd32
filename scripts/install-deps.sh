#!/usr/bin/env bash
# Installs every Debian 12 package Fieldscope needs to build, test and run. Idempotent: packages
# already present are skipped without touching the network. The local cluster (etcd,
# kube-apiserver, kube-controller-manager, kubectl) is built from Go modules by
# scripts/build-kube.sh with the machine's own Go 1.26; Debian's golang-go (1.19) is too old for
# it and is not installed.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
  SUDO="sudo"
fi

# Build and runtime libraries; see docs/architecture.md for why each one is here.
PKGS=(
  build-essential cmake ninja-build ccache pkg-config git
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqt6svg6 qt6-qpa-plugins libgl-dev
  libqscintilla2-qt6-dev libyaml-cpp-dev libcurl4-openssl-dev libnghttp2-dev
  libsimdjson-dev nlohmann-json3-dev libsqlite3-dev libzstd-dev zlib1g-dev libpq-dev
  fonts-dejavu-core
  # the real PostgreSQL the team-history tests start (scripts/fieldscope-postgres)
  postgresql
  # the real cluster for tests and the sandbox: its certificates and readiness probes; unzip
  # unpacks Go's release where the machine has no Go 1.26 (scripts/build-kube.sh)
  openssl curl unzip
  # the Debian packages' checks (scripts/package.sh)
  lintian desktop-file-utils appstream
  # the libFuzzer targets (scripts/fuzz.sh)
  clang-14 libclang-rt-14-dev
  # the formatter (scripts/format.sh, the check_format test): its output differs between
  # versions, so exactly 14
  clang-format-14
  # static analysis (scripts/lint.sh): clang-tidy and clazy for Qt; python3 drives them; clang's
  # and LLVM's headers build the plugin that runs both in one parse (scripts/lib/lintscope.cpp;
  # llvm-14-dev is only recommended by clang-14, and recommends are not installed here)
  clang-tidy-14 clazy python3 libclang-14-dev llvm-14-dev
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
