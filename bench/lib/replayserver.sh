# shellcheck shell=bash
# Sourced by the bench scripts that replay Pods: starts bench/replay_server with COUNT Pods (one
# Pod recorded from a real apiserver, multiplied) in a new temporary folder and writes a
# kubeconfig for it (context "replay"). Sets: dir, server (its pid), url. Set the EXIT trap to
# replay_server_cleanup (or a command ending with it) before starting.
#   start_replay_server COUNT      (the replay_server of build/$preset, release by default)
start_replay_server() {
  dir="$(mktemp -d)"
  mkfifo "$dir/keep"
  build/"${preset:-release}"/bench/replay_server --pod tests/data/history/pod.json --pods "$1" <"$dir/keep" >"$dir/url" &
  server=$!
  exec 3>"$dir/keep" # the server runs until this descriptor closes
  until [ -s "$dir/url" ]; do
    sleep 0.2
    kill -0 "$server"
  done
  url="$(head -1 "$dir/url")"
  cat >"$dir/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: replay
  cluster:
    server: $url
users:
- name: bench
  user:
    token: bench
contexts:
- name: replay
  context:
    cluster: replay
    user: bench
current-context: replay
KC
}

# (set -e holds inside an EXIT trap too: nothing here may stop the clean-up)
replay_server_cleanup() {
  exec 3>&- || true
  if [ -n "${server:-}" ]; then wait "$server" 2>/dev/null || true; fi
  if [ -n "${dir:-}" ]; then rm -rf "$dir"; fi
}
