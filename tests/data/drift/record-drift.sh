#!/usr/bin/env bash
# Records the two histories of this folder against a running scripts/fieldscope-cluster (whose
# kube-apiserver writes the audit log the recorder follows, and has the token users alice and bob).
#   record-drift.sh CLUSTER_DIR CONTEXT FIELDSCOPE KUBECTL OUT_DIR
# Writes OUT_DIR/deployment.jsonl, configmap.jsonl (fieldscope export) and *.who.json (each
# version's `who` as `fieldscope history -o json` prints it, without `match`).
set -euo pipefail
cluster="${1:?usage: record-drift.sh CLUSTER_DIR CONTEXT FIELDSCOPE KUBECTL OUT_DIR}"
ctx="$2" fs="$3" k="$4" out="$5"
export KUBECONFIG="$cluster/kubeconfig"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# record RESOURCE NS NAME SCENARIO OUT: records RESOURCE in NS while SCENARIO writes, then exports.
record() {
  local resource="$1" ns="$2" name="$3" scenario="$4" file="$5"
  "$k" create namespace "$ns" >/dev/null
  "$fs" record "$resource" -n "$ns" --db "$work/$file.db" --audit-log "$cluster/logs/audit.log" \
    --kubeconfig "$KUBECONFIG" --context "$ctx" 2>"$work/$file.err" &
  local pid=$!
  for _ in $(seq 1 60); do grep -q "recording $resource" "$work/$file.err" && break; sleep 0.5; done
  "$scenario" "$ns"
  sleep 3
  kill -TERM "$pid"; wait "$pid"
  "$fs" export --db "$work/$file.db" --to "$out/$file.jsonl" "$resource/$name" -n "$ns"
  "$fs" history "$resource/$name" -n "$ns" --db "$work/$file.db" -o json | python3 -c '
import json, sys
who = {e["resourceVersion"]: e["who"] for e in json.load(sys.stdin) if e["who"]}
for w in who.values(): w.pop("match", None)
json.dump(who, sys.stdout, indent=1, sort_keys=True); print()' >"$out/$file.who.json"
}

# An applier (kubectl apply --server-side), alice's patch of the image, bob's scale, the admin's
# label; the controller manager writes status all along.
deployment() {
  cat <<'YAML' | "$k" -n "$1" apply --server-side -f -
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web, team: a}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.27", env: [{name: MODE, value: blue}]}
YAML
  sleep 2
  "$k" -n "$1" --context "$ctx-alice" patch deploy web --type=strategic \
    -p '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}'
  sleep 1
  "$k" -n "$1" --context "$ctx-bob" scale deploy web --replicas=4
  sleep 1
  "$k" -n "$1" label deploy web extra=x
}

settings() { printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n%s\n' "$1"; }

# gitops applies a, b, c; alice patches a; gitops applies again with --force-conflicts (and d);
# bob removes b (a JSON Patch); the admin sets c as kubectl-edit, alice sets it back to its applied
# value; helm applies e; the admin labels the ConfigMap.
configmap() {
  settings '  {a: "1", b: "2", c: "3"}' | "$k" -n "$1" apply --server-side --field-manager=gitops -f -
  sleep 1.2
  "$k" -n "$1" --context "$ctx-alice" patch cm settings --type=merge -p '{"data":{"a":"9"}}'
  sleep 1.2
  settings '  {a: "1", b: "2", c: "3", d: "4"}' |
    "$k" -n "$1" apply --server-side --field-manager=gitops --force-conflicts -f -
  sleep 1.2
  "$k" -n "$1" --context "$ctx-bob" patch cm settings --type=json -p '[{"op":"remove","path":"/data/b"}]'
  sleep 1.2
  "$k" -n "$1" patch cm settings --type=merge --field-manager=kubectl-edit -p '{"data":{"c":"30"}}'
  sleep 1.2
  "$k" -n "$1" --context "$ctx-alice" patch cm settings --type=merge -p '{"data":{"c":"3"}}'
  sleep 1.2
  settings '  {e: "5"}' | "$k" -n "$1" apply --server-side --field-manager=helm -f -
  sleep 1.2
  "$k" -n "$1" label cm settings x=y
}

suffix="$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
record deployments "drift-rec-$suffix" web deployment deployment
record configmaps "drift-cm-$suffix" settings configmap configmap
