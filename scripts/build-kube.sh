#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager and kubectl 1.20.2 from Debian 12's `kubernetes` source
# package and caches them under ${FIELDSCOPE_CACHE:-~/.cache/fieldscope}/kube-1.20.2/bin.
# Prints the bin directory on stdout as its last line. Idempotent: a cached build is reused.
#
# Why from source: Debian ships no kube-apiserver binary, only the source (used for kubectl).
# Known trap: the vendored github.com/modern-go/reflect2 v1.0.1 crashes under Go 1.19
# ("fatal error: fault" in mapiternext); we swap in Debian's 1.0.2 sources before building.
set -euo pipefail

CACHE="${FIELDSCOPE_CACHE:-$HOME/.cache/fieldscope}"
OUT="$CACHE/kube-1.20.2"
BIN="$OUT/bin"
if [ -x "$BIN/kube-apiserver" ] && [ -x "$BIN/kube-controller-manager" ] && [ -x "$BIN/kubectl" ]; then
  echo "$BIN"; exit 0
fi

here="$(cd "$(dirname "$0")" && pwd)"
"$here/install-deps.sh" >&2

SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
. "$here/lib/apt-sources.sh"
fieldscope_ensure_deb_src

work="$OUT/src"
mkdir -p "$work" "$BIN"
cd "$work"
if ! ls -d kubernetes-1.20.*/ >/dev/null 2>&1; then
  echo "build-kube: fetching Debian's kubernetes source package" >&2
  apt-get source --download-only kubernetes >&2 || { $SUDO apt-get update -qq; apt-get source --download-only kubernetes >&2; }
  dpkg-source -x --no-check kubernetes_*.dsc >&2
fi
srcdir="$(ls -d "$work"/kubernetes-1.20.*/ | head -1)"
srcdir="${srcdir%/}"

# GOPATH layout, as debian/rules does for kubectl.
gopath="$work/gopath"
mkdir -p "$gopath/src/k8s.io"
ln -sfn "$srcdir" "$gopath/src/k8s.io/kubernetes"

reflect2="$srcdir/vendor/github.com/modern-go/reflect2"
if [ ! -f "$reflect2/.fieldscope-1.0.2" ]; then
  echo "build-kube: replacing vendored reflect2 1.0.1 with Debian's 1.0.2" >&2
  rm -rf "$reflect2"; mkdir -p "$reflect2"
  cp -r /usr/share/gocode/src/github.com/modern-go/reflect2/. "$reflect2/"
  rm -rf "$reflect2"/*_test.go "$reflect2"/test* 2>/dev/null || true
  touch "$reflect2/.fieldscope-1.0.2"
fi

cd "$gopath/src/k8s.io/kubernetes"
export GOPATH="$gopath" GO111MODULE=off GOFLAGS=-mod=vendor GOCACHE="$CACHE/go-build" \
       KUBE_GIT_VERSION=v1.20.2 KUBE_GIT_TREE_STATE=clean KUBE_GIT_COMMIT=debian
unset GOFLAGS
# kubectl: the peer the tests and benchmarks compare against (Debian's kubernetes-client package
# clashes with other kubectl packages some images carry, and its version must match the server's).
for what in cmd/kube-apiserver cmd/kube-controller-manager cmd/kubectl; do
  name="$(basename "$what")"
  [ -x "$BIN/$name" ] && continue
  echo "build-kube: building $name (several minutes on 2 cores)" >&2
  make WHAT="$what" KUBE_BUILD_PLATFORMS=linux/amd64 GOFLAGS="-mod=vendor" GOLDFLAGS="-s -w" >&2 \
    || make WHAT="$what" GOLDFLAGS="-s -w" >&2
  built="$(find _output -type f -name "$name" -perm -u+x | head -1)"
  [ -n "$built" ] || { echo "build-kube: $name not produced" >&2; exit 1; }
  cp "$built" "$BIN/$name.tmp" && mv "$BIN/$name.tmp" "$BIN/$name"
done
echo "$BIN"
