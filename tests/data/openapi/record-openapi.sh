#!/usr/bin/env bash
# Records the OpenAPI v3 documents tests/core/tst_openapilists.cpp reads, from a real cluster that
# scripts/fieldscope-cluster started (the release scripts/build-kube.sh builds):
#   tests/data/openapi/record-openapi.sh CLUSTER_DIR
# It creates the CRD of router-crd.yaml, then saves the server's /openapi/v3 index and the
# documents of apps/v1 and merge.fieldscope.dev/v1. Two things are taken out, to keep the files
# small, and nothing else is changed: the operations (`paths`; the schemas are under
# `components`) and every string-valued `description`. To change a file, change this script and
# record again.
set -euo pipefail
dir="$(cd "${1:?usage: record-openapi.sh CLUSTER_DIR}" && pwd)"
out="$(cd "$(dirname "$0")" && pwd)"
kubectl=(kubectl --kubeconfig "$dir/kubeconfig")
version="$("${kubectl[@]}" get --raw /version | jq -r '.gitVersion | capture("^v(?<v>[0-9]+[.][0-9]+)").v')"
[ -n "$version" ] || { echo "record-openapi: no /version" >&2; exit 1; }

"${kubectl[@]}" apply --server-side --field-manager recorder -f "$out/router-crd.yaml" >&2
"${kubectl[@]}" wait --for condition=Established --timeout 60s crd/routers.merge.fieldscope.dev >&2
# The aggregator publishes a new CRD's schema a moment after it is established.
for _ in $(seq 60); do
  "${kubectl[@]}" get --raw /openapi/v3 | jq -e '.paths["apis/merge.fieldscope.dev/v1"]' > /dev/null && break
  sleep 1
done

trim='del(.paths) | walk(if type == "object" and (.description | type) == "string" then del(.description) else . end)'
"${kubectl[@]}" get --raw /openapi/v3 | jq -S . > "$out/index-$version.json"
"${kubectl[@]}" get --raw /openapi/v3/apis/apps/v1 | jq -S "$trim" > "$out/apps-v1-$version.json"
"${kubectl[@]}" get --raw /openapi/v3/apis/merge.fieldscope.dev/v1 | jq -S "$trim" > "$out/merge.fieldscope.dev-v1-$version.json"
echo "record-openapi: recorded from $("${kubectl[@]}" get --raw /version | jq -r .gitVersion)" >&2
