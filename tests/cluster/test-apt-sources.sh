#!/usr/bin/env bash
# scripts/lib/apt-sources.sh: deb-src entries are derived from the machine's own deb
# entries (any mirror, proxy or snapshot; keyring and options kept), never a hard-coded host.
set -euo pipefail
lib="$1"
. "$lib"
etc="$(mktemp -d)"; trap 'rm -rf "$etc"' EXIT
mkdir -p "$etc/sources.list.d"
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > "$etc/sources.list.d/debian.sources" <<'SRC'
Types: deb
# a snapshot, as CI machines use
URIs: http://snapshot.example/archive/debian/20250520T000000Z
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://disabled.example/debian
Suites: bookworm
Components: main
Enabled: no
SRC
printf 'deb [signed-by=/etc/k.gpg arch=amd64] http://proxy.example:3142/debian bookworm main\n# deb http://commented.example/debian bookworm main\n' \
  > "$etc/sources.list"
# What an earlier version wrote is ours: ignored as a source, replaced.
printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\n' > "$etc/sources.list.d/fieldscope-src.sources"

out="$(fieldscope_derive_deb_src "$etc")"
expected='Types: deb-src
URIs: http://snapshot.example/archive/debian/20250520T000000Z
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
--- list
deb-src [signed-by=/etc/k.gpg arch=amd64] http://proxy.example:3142/debian bookworm main'
[ "$out" = "$expected" ] || fail "derived entries differ:
$out
--- expected:
$expected"

grep -q 'deb.debian.org' "$lib" && fail "the helper names a host"
for s in install-deps.sh build-kube.sh; do
  grep -q 'deb.debian.org' "$(dirname "$lib")/../$s" && fail "$s names a host"
done

fieldscope_has_foreign_deb_src "$etc" && fail "our own file counted as an existing deb-src"
printf 'Types: deb deb-src\nURIs: http://x.example/debian\nSuites: bookworm\nComponents: main\n' > "$etc/sources.list.d/both.sources"
fieldscope_has_foreign_deb_src "$etc" || fail "an existing deb-src entry was not seen"
echo "ok"
