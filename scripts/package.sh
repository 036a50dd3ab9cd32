#!/usr/bin/env bash
# Builds the Debian packages and checks them:
#   build/packages/fieldscope_VERSION_amd64.deb          the app (VERSION from git describe)
#   build/packages/fieldscope-sandbox_VERSION_amd64.deb  etcd + kube-apiserver + kube-controller-manager
# Checks: lintian (no errors or warnings), desktop-file-validate, appstreamcli validate.
#   scripts/package.sh            build and check
#   scripts/package.sh --install  also install both with apt-get (Depends resolve), run the
#                                 installed binary (--version, blame -f, an offscreen screenshot of
#                                 its own sandbox), and remove them again. Needs root or sudo.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
install_check=0
[ "${1:-}" = --install ] && install_check=1

scripts/install-deps.sh
scripts/build-kube.sh >/dev/null
preset="${FIELDSCOPE_PRESET:-ci}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"

out="$root/build/packages"
rm -rf "$out"; mkdir -p "$out"
(cd "build/$preset" && cpack -B "$out" >/dev/null)
rm -rf "$out/_CPack_Packages"
echo "package: built $(cd "$out" && ls ./*.deb | tr '\n' ' ')"

desktop-file-validate packaging/org.fieldscope.Fieldscope.desktop
appstreamcli validate --no-net "build/$preset/packaging/generated/org.fieldscope.Fieldscope.metainfo.xml"
if ! lintian --fail-on error,warning --tag-display-limit 0 "$out"/*.deb > "$root/build/lintian.txt" 2>&1; then
  grep -v 'running with root privileges' "$root/build/lintian.txt" >&2
  echo "package: lintian found errors or warnings" >&2
  exit 1
fi
echo "package: lintian, desktop-file-validate and appstreamcli validate pass"

[ "$install_check" = 1 ] || exit 0
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -qq "$out"/fieldscope_*.deb "$out"/fieldscope-sandbox_*.deb >/dev/null
home="$(mktemp -d)"
trap '$SUDO apt-get remove -y -qq fieldscope fieldscope-sandbox >/dev/null; /usr/lib/fieldscope/fieldscope-cluster stop "$home/data/fieldscope/sandbox" --purge >/dev/null 2>&1 || true; rm -rf "$home"' EXIT
/usr/bin/fieldscope --version
/usr/bin/fieldscope blame -f tests/data/ownership/service.yaml >/dev/null
man -w fieldscope >/dev/null
# The installed window starts its sandbox from /usr/lib/fieldscope (no source path involved).
env -i HOME="$home" PATH=/usr/bin:/bin XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" QT_QPA_PLATFORM=offscreen \
  timeout 240 /usr/bin/fieldscope --screenshot "$home/installed.png" --size 1024x640 --screenshot-timeout 200 | grep -q installed.png
[ -s "$home/installed.png" ]
echo "package: installed, ran (--version, blame -f, sandbox screenshot) and removed"
