#!/usr/bin/env bash
# scripts/fieldscope-cluster with stand-ins for etcd, kube-apiserver, kube-controller-manager and
# curl (a few seconds, no cluster): values from the command line are arguments, never code, and
# the admin token never appears on a command line that `ps` shows.
#   test-fieldscope-cluster.sh PATH-TO-fieldscope-cluster
set -euo pipefail
script="$1"
work="$(mktemp -d)"
cleanup() {
  for p in "$work"/*/run/*.pid; do [ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

bin="$work/bin"; mkdir "$bin"
for b in kube-apiserver kube-controller-manager; do
  printf '#!/bin/sh\nexec sleep 60\n' > "$bin/$b"; chmod +x "$bin/$b"
done
# etcd says its version (the start checks what wrote the data it is given), then serves.
printf '#!/bin/sh\ncase "$1" in --version) echo "etcd Version: 3.7.3";; *) exec sleep 60;; esac\n' > "$bin/etcd"
chmod +x "$bin/etcd"
# curl that answers "healthy" and records its arguments, and its stdin when told to read it.
cat > "$bin/curl" <<'CURL'
#!/bin/sh
{ printf 'ARGS:'; for a in "$@"; do printf ' [%s]' "$a"; done; printf '\n'
  for a in "$@"; do if [ "$a" = "-" ]; then printf 'STDIN: '; cat; fi; done; } >> "$CURL_LOG"
# The RoleBinding POST asks for the status code: created.
case "$*" in *http_code*) printf 201 ;; esac
exit 0
CURL
chmod +x "$bin/curl"
export CURL_LOG="$work/curl.log" PATH="$bin:$PATH"
export FIELDSCOPE_ETCD="$bin/etcd" FIELDSCOPE_KUBE_APISERVER="$bin/kube-apiserver" FIELDSCOPE_KUBE_CONTROLLER_MANAGER="$bin/kube-controller-manager"

# 1. A folder name with a quote and a command substitution, and a watchdog (--max-lifetime).
dir="$work/it's \$(touch PWNED) '\$(touch PWNED2)'"
"$script" start "$dir" --name t --max-lifetime 1 >/dev/null 2>"$work/start.err" || { cat "$work/start.err" >&2; fail "start failed"; }
for _ in $(seq 1 150); do # the watchdog stops everything after 1 s
  [ -f "$dir/run/watchdog.pid" ] || [ -f "$dir/run/etcd.pid" ] || break
  sleep 0.1
done
[ ! -f "$dir/run/watchdog.pid" ] || fail "the watchdog did not run stop"
[ ! -f "$dir/run/etcd.pid" ] || fail "the watchdog did not stop etcd"
[ -z "$(find "$work" -name 'PWNED*' -print -quit)" ] || fail "a folder name ran code"
grep -qxF "      command: '$(printf '%s' "$dir" | sed "s/'/''/g")/exec-credential.sh'" "$dir/kubeconfig" \
  || fail "the kubeconfig does not name the plugin as one quoted string"

# 2. The admin token went through curl's stdin, never its arguments.
token="$(awk -F, '$2=="fieldscope-admin" {print $1}' "$dir/pki/tokens.csv")"
[ -n "$token" ] || fail "no admin token generated"
grep -q '^ARGS:' "$CURL_LOG" || fail "curl was not called"
! grep '^ARGS:' "$CURL_LOG" | grep -qF "$token" || fail "the token was on curl's command line"
grep '^STDIN:' "$CURL_LOG" | grep -qF "Bearer $token" || fail "the token did not reach curl through stdin"

# 3. Options that would be code are refused before anything starts.
if "$script" start "$work/x" --max-lifetime '1; touch PWNED3' 2>"$work/err3"; then fail "a --max-lifetime with code was accepted"; fi
grep -q -- '--max-lifetime must be a number' "$work/err3" || fail "no clear message for --max-lifetime"
if "$script" start "$work/y" --name "a'b" 2>/dev/null; then fail "a --name with a quote was accepted"; fi
[ -z "$(find "$work" -name 'PWNED*' -print -quit)" ] || fail "an option ran code"

# 4. A lock the caller holds (as `flock LOCK ctest` does) is not kept by the servers or the
#    watchdog once `start` has returned.
lockdir="$work/locked"
exec 7>"$work/build.lock"
flock 7
"$script" start "$lockdir" --name l --max-lifetime 600 >/dev/null 2>"$work/start4.err" || { cat "$work/start4.err" >&2; fail "start with a held lock failed"; }
exec 7>&-
flock -n "$work/build.lock" true || fail "a server or the watchdog kept the caller's lock descriptor"
"$script" stop "$lockdir" >/dev/null 2>&1 || true

# 5. Data an older etcd wrote (no version stamp: the etcd 3.4 of older Fieldscopes) is moved
#    aside, never deleted, and the stamp names the etcd that serves now; data stamped by the
#    previous minor (3.6, which 3.7 upgrades in place) stays where it is.
old="$work/old"; mkdir -p "$old/etcd/member"; echo keep > "$old/etcd/member/db"
"$script" start "$old" --name o --max-lifetime 600 >/dev/null 2>"$work/start5.err" || { cat "$work/start5.err" >&2; fail "start over old data failed"; }
"$script" stop "$old" >/dev/null 2>&1 || true
aside="$(find "$old" -maxdepth 1 -name 'etcd-3.4-*' -print -quit)"
[ -n "$aside" ] && [ "$(cat "$aside/member/db")" = keep ] || fail "etcd 3.4 data was not moved aside intact"
[ ! -e "$old/etcd/member/db" ] || fail "etcd 3.4 data was left where etcd 3.7 would read it"
[ "$(cat "$old/etcd.version")" = 3.7 ] || fail "the data stamp does not name etcd 3.7"
grep -q "written by etcd 3.4" "$work/start5.err" || fail "moving the data aside was not said"
near="$work/near"; mkdir -p "$near/etcd/member"; echo keep > "$near/etcd/member/db"; echo 3.6 > "$near/etcd.version"
"$script" start "$near" --name n --max-lifetime 600 >/dev/null 2>"$work/start6.err" || { cat "$work/start6.err" >&2; fail "start over 3.6 data failed"; }
"$script" stop "$near" >/dev/null 2>&1 || true
[ "$(cat "$near/etcd/member/db")" = keep ] || fail "etcd 3.6 data, which 3.7 upgrades in place, was moved"
# 6. A class: options that would be code are refused; every certificate ends at --not-after; keys
#    are 0600 in a 0700 folder; the client CA bundle gains the class CA and loses it again.
cls="$work/class"
"$script" start "$cls" --name c --max-lifetime 600 >/dev/null 2>"$work/start7.err" || { cat "$work/start7.err" >&2; fail "start for a class failed"; }
if "$script" class-certs "$cls" --students 'a,b;touch PWNED4' --not-after 20300101000000Z 2>"$work/err7"; then fail "a --students with code was accepted"; fi
grep -q -- '--students must be DNS labels' "$work/err7" || fail "no clear message for --students"
if "$script" class-certs "$cls" --students a --not-after '$(touch PWNED5)' 2>/dev/null; then fail "a --not-after with code was accepted"; fi
if "$script" class-trust "$cls" --listen 'a b' 2>/dev/null; then fail "a --listen with a space was accepted"; fi
[ -z "$(find "$work" -name 'PWNED*' -print -quit)" ] || fail "a class option ran code"
"$script" class-certs "$cls" --students ann,bo --not-after 20300101000000Z 2>"$work/err8" || { cat "$work/err8" >&2; fail "class-certs failed"; }
[ "$(openssl x509 -in "$cls/class/pki/bo.crt" -noout -enddate)" = "notAfter=Jan  1 00:00:00 2030 GMT" ] || fail "a student certificate does not end at --not-after"
[ "$(openssl x509 -in "$cls/class/pki/ca.crt" -noout -enddate)" = "notAfter=Jan  1 00:00:00 2030 GMT" ] || fail "the class CA does not end at --not-after"
openssl x509 -in "$cls/class/pki/ann.crt" -noout -subject | grep -qF "O = fieldscope:class, CN = ann" || fail "wrong student subject"
[ "$(stat -c %a "$cls/class/pki/ann.key")" = 600 ] && [ "$(stat -c %a "$cls/class/pki/ca.key")" = 600 ] \
  && [ "$(stat -c %a "$cls/class/pki")" = 700 ] || fail "class keys or their folder are not private"
"$script" class-trust "$cls" >/dev/null 2>&1 || fail "class-trust failed"
[ "$(grep -c BEGIN "$cls/pki/client-ca.crt")" = 2 ] || fail "the bundle does not hold the class CA"
before="$(cat "$cls/run/apiserver.pid")"
# A revoke that could not start the API server again (its binary gone: a HOME or PATH that is not
# the teacher's) fails before stopping it; the bundle is rewritten already, so new requests of
# students are refused all the same.
if FIELDSCOPE_KUBE_APISERVER=/nonexistent "$script" class-revoke "$cls" 2>"$work/err8b"; then
  fail "class-revoke without a kube-apiserver binary succeeded"
fi
grep -q 'FIELDSCOPE_KUBE_APISERVER=/nonexistent is not executable' "$work/err8b" || fail "no clear message for a missing kube-apiserver"
kill -0 "$before" 2>/dev/null || fail "class-revoke stopped the API server it could not start again"
[ "$(grep -c BEGIN "$cls/pki/client-ca.crt")" = 1 ] || fail "a failed class-revoke kept the class CA in the bundle"
"$script" class-trust "$cls" >/dev/null 2>&1 || fail "class-trust after a failed revoke failed"
before="$(cat "$cls/run/apiserver.pid")"
"$script" class-revoke "$cls" >/dev/null 2>&1 || fail "class-revoke failed"
[ "$(grep -c BEGIN "$cls/pki/client-ca.crt")" = 1 ] || fail "the bundle still holds the class CA"
# A restart, so every student's open stream ends with the revocation.
[ "$(cat "$cls/run/apiserver.pid")" != "$before" ] || fail "class-revoke did not restart the API server"
# 7. Without etcd, restart-apiserver and start-apiserver refuse instead of starting an API server
#    against nothing; class-revoke on a stopped cluster only rewrites the bundle.
"$script" kill-apiserver "$cls" >/dev/null 2>&1
kill "$(cat "$cls/run/etcd.pid")"; for _ in $(seq 1 50); do kill -0 "$(cat "$cls/run/etcd.pid")" 2>/dev/null || break; sleep 0.1; done
if "$script" restart-apiserver "$cls" 2>"$work/err9"; then fail "restart-apiserver started without etcd"; fi
grep -q 'etcd .* is not running' "$work/err9" || fail "no clear message for restart-apiserver without etcd"
if "$script" start-apiserver "$cls" 2>/dev/null; then fail "start-apiserver started without etcd"; fi
[ ! -f "$cls/run/apiserver.pid" ] || fail "an API server was started without etcd"
"$script" class-revoke "$cls" >/dev/null 2>&1 || fail "class-revoke on a stopped cluster failed"
[ ! -f "$cls/run/apiserver.pid" ] || fail "class-revoke started an API server on a stopped cluster"
"$script" stop "$cls" >/dev/null 2>&1 || true
echo "ok"
