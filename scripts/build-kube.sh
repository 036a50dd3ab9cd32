#!/usr/bin/env bash
# Builds the control plane Fieldscope's tests, lessons, benchmarks and sandbox run on, from
# published Go modules: kube-apiserver, kube-controller-manager and kubectl of the Kubernetes
# release in scripts/kube-modules/kubernetes/go.mod, and the etcd of scripts/kube-modules/etcd.
# Both wrapper modules have their go.sum committed: every build is verified against the same
# checksums (go's default -mod=readonly refuses anything else). To move to another release:
# scripts/kube-modules/gen-kubernetes-gomod.sh vX.Y.Z, then commit.
#
# Cached under ${FIELDSCOPE_CACHE:-~/.cache/fieldscope}/kube-<version>/bin; the cache is keyed by
# the wrapper modules' contents, so a cached build costs nothing and a changed go.sum rebuilds.
# Prints the bin directory on stdout as its last line; progress and timings go to stderr.
#
# Go: the machine's own Go, 1.26 or newer (the release's go.mod asks for go 1.26.0). GOTOOLCHAIN
# stays `local`: nothing downloads another toolchain behind the user's back. Debian's golang-go
# (1.19) is too old and is never used, even when it comes first on the PATH.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
mods="$here/kube-modules"
CACHE="${FIELDSCOPE_CACHE:-$HOME/.cache/fieldscope}"

# The version a go.mod requires of a module, in a require block or on a require line of its own.
required() { awk -v m="$2" '$1==m {print $2; exit} $1=="require" && $2==m {print $3; exit}' "$1"; }
kube_version="$(required "$mods/kubernetes/go.mod" k8s.io/kubernetes)"
etcd_version="$(required "$mods/etcd/go.mod" go.etcd.io/etcd/server/v3)"
[[ "$kube_version" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || { echo "build-kube: no k8s.io/kubernetes release in $mods/kubernetes/go.mod" >&2; exit 1; }
minor="${BASH_REMATCH[1]}"
[ -n "$etcd_version" ] || { echo "build-kube: no etcd version in $mods/etcd/go.mod" >&2; exit 1; }

OUT="$CACHE/kube-${kube_version#v}"
BIN="$OUT/bin"
# What the binaries are built from: both wrapper modules, the etcd entry point and this script.
key="$(cat "$mods/kubernetes/go.mod" "$mods/kubernetes/go.sum" "$mods/etcd/go.mod" "$mods/etcd/go.sum" \
          "$mods/etcd/main.go" "$0" | sha256sum | cut -c1-16)"
if [ "$(cat "$BIN/.fieldscope-build" 2>/dev/null)" = "$key" ]; then
  for b in etcd kube-apiserver kube-controller-manager kubectl; do [ -x "$BIN/$b" ] || key=stale; done
  if [ "$key" != stale ]; then echo "build-kube: cached $kube_version, etcd $etcd_version in $BIN" >&2; echo "$BIN"; exit 0; fi
fi

# The first `go` that is 1.26 or newer: the PATH's, then Go's own install location.
find_go() {
  local g v
  for g in "$(command -v go 2>/dev/null || true)" /usr/local/go/bin/go /usr/lib/go-1.26/bin/go; do
    [ -n "$g" ] && [ -x "$g" ] || continue
    v="$(GOTOOLCHAIN=local "$g" env GOVERSION 2>/dev/null || true)"
    if [[ "$v" =~ ^go1\.([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 26 ]; then echo "$g"; return 0; fi
  done
  return 1
}
gobin="$(find_go)" || {
  echo "build-kube: Kubernetes $kube_version needs Go 1.26 or newer; found: $(go version 2>/dev/null || echo 'no go')." >&2
  echo "build-kube: install Go 1.26 (this project's machines have it in /usr/local/go) and run again." >&2
  exit 1
}
export PATH="$(dirname "$gobin"):$PATH"
export GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -mod=readonly" CGO_ENABLED=0 GOCACHE="$CACHE/go-build"
echo "build-kube: building Kubernetes $kube_version and etcd $etcd_version with $(go version) (cold: ~15-25 minutes on 2 cores)" >&2

tmp="$OUT/bin.new"
rm -rf "$tmp"; mkdir -p "$tmp"
t0=$SECONDS
(cd "$mods/kubernetes" && go mod download) >&2
(cd "$mods/etcd" && go mod download) >&2
echo "build-kube: modules downloaded and verified in $((SECONDS - t0)) s" >&2

# The version stamp upstream's hack/lib/version.sh sets, so /version and `kubectl version` answer
# the real release instead of v0.0.0-master.
stamp=""
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  stamp+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  stamp+=" -X $pkg.gitTreeState=clean -X $pkg.gitCommit=fieldscope-modules-$key"
  stamp+=" -X $pkg.buildDate=1970-01-01T00:00:00Z"
done
t1=$SECONDS
(cd "$mods/kubernetes" && go build -trimpath -ldflags "-s -w$stamp" -o "$tmp/" \
   k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl) >&2
echo "build-kube: kube-apiserver, kube-controller-manager, kubectl built in $((SECONDS - t1)) s" >&2
t2=$SECONDS
(cd "$mods/etcd" && go build -trimpath \
   -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=fieldscope-modules-$key" -o "$tmp/etcd" .) >&2
echo "build-kube: etcd built in $((SECONDS - t2)) s" >&2

"$tmp/kube-apiserver" --version >&2
"$tmp/etcd" --version | head -1 >&2
echo "$key" > "$tmp/.fieldscope-build"
rm -rf "$BIN.old"; [ -d "$BIN" ] && mv "$BIN" "$BIN.old"
mv "$tmp" "$BIN"; rm -rf "$BIN.old"
echo "build-kube: done in $((SECONDS - t0)) s" >&2
echo "$BIN"
