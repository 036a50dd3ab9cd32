#!/usr/bin/env bash
# Records one scripted sequence against the cluster in DIR; writes DIR/watch.jsonl
set -euo pipefail
D="$1"
K=~/.cache/fieldscope/kube-1.20.2/bin/kubectl
tok() { awk -F, -v u="$1" '$2==u {print $1}' "$D/pki/tokens.csv"; }
export KUBECONFIG="$D/kubeconfig"
server=$($K config view -o jsonpath='{.clusters[0].cluster.server}')
$K config set-credentials alice --token="$(tok alice)" >/dev/null
$K config set-credentials bob --token="$(tok bob)" >/dev/null
$K config set-context alice --cluster="$($K config view -o jsonpath='{.clusters[0].name}')" --user=alice --namespace=team >/dev/null
$K config set-context bob --cluster="$($K config view -o jsonpath='{.clusters[0].name}')" --user=bob --namespace=team >/dev/null
A="$K --context alice"; B="$K --context bob"; ADM="$K"
$ADM create namespace team
$ADM create namespace other
$ADM -n team create rolebinding devs --clusterrole=edit --user=alice --user=bob --serviceaccount=team:deployer
$ADM -n team create serviceaccount deployer
sleep 1
# a raw watch of configmaps in team, as the recorder would see it
curl -sS -N --cacert "$D/pki/ca.crt" -H "Authorization: Bearer $(tok fieldscope-admin)" \
  "$server/api/v1/namespaces/team/configmaps?watch=1" > "$D/watch.jsonl" &
WPID=$!
sleep 1
$A create configmap app --from-literal=a=1                        # create, kubectl-create
sleep 1.2
$A get cm app -o json > "$D/stale.json"
$B create configmap app --from-literal=a=9 || true                 # 409 AlreadyExists
$B label cm app tier=web                                           # patch, kubectl-label
sleep 1.2
$A replace -f "$D/stale.json" || true                              # 409 stale resourceVersion
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: team}\ndata: {a: "2"}\n' > "$D/apply-a.yaml"
$B apply --server-side -f "$D/apply-a.yaml" || true                # 409 apply conflict
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: team}\ndata: {b: "2"}\n' > "$D/apply-b.yaml"
$B apply --server-side -f "$D/apply-b.yaml"                        # patch apply, manager kubectl
sleep 1.2
$A create configmap Bad_Name --from-literal=x=1 || true            # 422
$B -n other create configmap x --from-literal=x=1 || true          # 403
$ADM -n team --as=system:serviceaccount:team:deployer patch cm app --type merge -p '{"data":{"c":"3"}}'   # impersonated
sleep 1.2
# no fieldManager: the server derives the manager from the User-Agent
$A get cm app -o json | python3 -c 'import json,sys; o=json.load(sys.stdin); o["data"]["d"]="4"; print(json.dumps(o))' > "$D/put.json"
curl -sS -o /dev/null -w '%{http_code}\n' --cacert "$D/pki/ca.crt" -H "Authorization: Bearer $(tok alice)" -A "team-tool/0.3 (linux/amd64)" \
  -X PUT -H 'Content-Type: application/json' --data-binary @"$D/put.json" "$server/api/v1/namespaces/team/configmaps/app"
sleep 1.2
# two users, same manager, same second: several candidates with a Metadata-only policy
$A annotate cm app note=alice & P1=$!; $B annotate cm app other=bob & P2=$!; wait $P1 $P2
sleep 1.2
$B delete cm app
sleep 1.5
kill $WPID
