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
# Go: the machine's own Go, 1.26 or newer (the release's go.mod asks for go 1.26.0); on a machine
# without one, Go 1.26.8 fetched once from the module proxy, its checksum pinned below. GOTOOLCHAIN
# stays `local`: go itself never downloads another toolchain. Debian's golang-go (1.19) is too old
# and is never used, even when it comes first on the PATH.
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
# One build at a time per release: test, run, package and bench scripts all call this one, and a
# second caller waits for the first's binaries instead of building them again beside it.
mkdir -p "$OUT"
exec 8>"$OUT/.lock"
flock 8
cached() {
  [ "$(cat "$BIN/.fieldscope-build" 2>/dev/null)" = "$key" ] || return 1
  for b in etcd kube-apiserver kube-controller-manager kubectl; do [ -x "$BIN/$b" ] || return 1; done
}
if cached; then
  echo "build-kube: cached $kube_version, etcd $etcd_version in $BIN ($((SECONDS)) s)" >&2
  echo "$BIN"; exit 0
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
# No Go 1.26 on the machine: Go's own release, the archive `GOTOOLCHAIN=go1.26.8` would fetch,
# from the module proxy (module golang.org/toolchain), checked against the checksum pinned here
# and unpacked into the cache. Module archives keep no file modes: the executables get theirs back.
go_release=go1.26.8
go_release_sha256=30c2b1bf7dcc88d3eb0a1364e47ddd9128edb3110a30e8a0ef61cd5856b31de7 # linux-amd64
fetch_go() {
  local dest="$CACHE/$go_release" proxy work
  if [ -x "$dest/bin/go" ]; then echo "$dest/bin/go"; return 0; fi
  [ "$(uname -m)" = x86_64 ] || { echo "build-kube: no Go 1.26 here, and only linux-amd64's release is pinned" >&2; return 1; }
  proxy="${GOPROXY:-https://proxy.golang.org}"; proxy="${proxy%%[,|]*}"
  [[ "$proxy" =~ ^https?:// ]] || { echo "build-kube: GOPROXY ($proxy) is not a proxy to fetch Go from" >&2; return 1; }
  echo "build-kube: no Go 1.26 on this machine: fetching $go_release from $proxy (about 70 MB)" >&2
  mkdir -p "$CACHE"; work="$(mktemp -d "$CACHE/go-fetch.XXXXXX")"
  if curl -fsSL --retry 3 -o "$work/go.zip" "$proxy/golang.org/toolchain/@v/v0.0.1-$go_release.linux-amd64.zip" \
     && echo "$go_release_sha256  $work/go.zip" | sha256sum -c --status \
     && unzip -q "$work/go.zip" -d "$work/x"; then
    mv "$work/x/golang.org/toolchain@v0.0.1-$go_release.linux-amd64" "$work/go"
    chmod +x "$work/go/bin/"* "$work/go/pkg/tool/"*/*
    rm -rf "$dest"; mv "$work/go" "$dest"; rm -rf "$work"
    echo "$dest/bin/go"; return 0
  fi
  rm -rf "$work"
  echo "build-kube: could not fetch $go_release (download failed or its checksum is not $go_release_sha256)" >&2
  return 1
}
gobin="$(find_go || fetch_go)" || {
  echo "build-kube: Kubernetes $kube_version needs Go 1.26 or newer; found: $(go version 2>/dev/null || echo 'no go')." >&2
  echo "build-kube: install Go 1.26 (or let this script fetch it: GOPROXY must reach a Go module proxy) and run again." >&2
  exit 1
}
export PATH="$(dirname "$gobin"):$PATH"
export GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -mod=readonly" CGO_ENABLED=0 GOCACHE="$CACHE/go-build"
echo "build-kube: building Kubernetes $kube_version and etcd $etcd_version with $(go version) (cold: about 6 minutes on 2 cores, module download included)" >&2

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
