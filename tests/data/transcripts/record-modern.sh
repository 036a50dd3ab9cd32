#!/usr/bin/env bash
# Records the unit tests' modern-server transcripts from a real cluster that
# scripts/fieldscope-cluster started (the release scripts/build-kube.sh builds):
#   tests/data/transcripts/record-modern.sh CLUSTER_DIR
# Each file is the server's answer as curl received it over HTTP/1.1 (status line, headers, body),
# behind comment lines saying what was asked. Nothing is edited by hand afterwards: to change a
# transcript, change this script and record again. It creates what it reads in the namespace
# `transcripts` (and the CRD transcripts.fieldscope.dev) and leaves them there.
set -euo pipefail
dir="$(cd "${1:?usage: record-modern.sh CLUSTER_DIR}" && pwd)"
out="$(cd "$(dirname "$0")" && pwd)"
token="$(awk -F, '$2=="fieldscope-admin" {print $1}' "$dir/pki/tokens.csv")"
server="https://127.0.0.1:$(cat "$dir/run/apiserver.port")"
# The token goes through curl's config on stdin, never on a command line.
api() { printf 'header = "Authorization: Bearer %s"\n' "$token" | curl -sS --http1.1 -K - --cacert "$dir/pki/ca.crt" "$@"; }
version="$(api "$server/version" | sed -n 's/.*"gitVersion": *"v\([0-9]*\.[0-9]*\)\..*/\1/p')"
[ -n "$version" ] || { echo "record-modern: no /version from $server" >&2; exit 1; }

# record FILE "COMMENT" CURL-ARGS...: the answer with its headers, CRLF as LF.
record() {
  local name="$1" file="$out/$1" comment="$2"; shift 2
  { printf '# %s\n' "$comment"
    printf '# recorded from kube-apiserver %s by tests/data/transcripts/record-modern.sh\n' "$(api "$server/version" | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p')"
    api -i "$@" | tr -d '\r'; } > "$file.tmp"
  mv "$file.tmp" "$file"
  echo "record-modern: $name" >&2
}
etag_of() { sed -n 's/^Etag: //Ip' "$out/$1" | head -1; }

aggregated='application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'
record "discovery/version-$version.http" "GET /version" "$server/version"
record "discovery/aggregated-$version-api.http" "GET /api with Accept: $aggregated (as client-go sends it)" \
  -H "Accept: $aggregated" "$server/api"
record "discovery/aggregated-$version-apis.http" "GET /apis with Accept: $aggregated" -H "Accept: $aggregated" "$server/apis"
record "discovery/aggregated-$version-api-304.http" "GET /api with the ETag of aggregated-$version-api.http: nothing changed" \
  -H "Accept: $aggregated" -H "If-None-Match: $(etag_of "discovery/aggregated-$version-api.http")" "$server/api"
record "discovery/aggregated-$version-apis-304.http" "GET /apis with the ETag of aggregated-$version-apis.http: nothing changed" \
  -H "Accept: $aggregated" -H "If-None-Match: $(etag_of "discovery/aggregated-$version-apis.http")" "$server/apis"

# A namespace with two ConfigMaps to list, stream and render.
ns=transcripts
api -o /dev/null -X POST -H 'Content-Type: application/json' --data "{\"metadata\":{\"name\":\"$ns\"}}" "$server/api/v1/namespaces"
for cm in a b; do
  api -o /dev/null -X PATCH -H 'Content-Type: application/apply-patch+yaml' \
    --data "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$cm\"},\"data\":{\"k\":\"$cm\"}}" \
    "$server/api/v1/namespaces/$ns/configmaps/$cm?fieldManager=recorder"
done
record "watch/watchlist-$version-initial.http" \
  "GET /api/v1/namespaces/$ns/configmaps?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&timeoutSeconds=1 (the stream ends after the server's timeout)" \
  "$server/api/v1/namespaces/$ns/configmaps?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&timeoutSeconds=1"
# Then ConfigMap a changes, and a watch from the initial list's bookmark sees that one change.
bookmark="$(sed -n 's/.*"resourceVersion":"\([0-9]*\)","annotations":{"k8s.io\/initial-events-end":"true"}.*/\1/p' "$out/watch/watchlist-$version-initial.http")"
api -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' --data '{"data":{"k":"changed"}}' \
  "$server/api/v1/namespaces/$ns/configmaps/a?fieldManager=recorder"
record "watch/watch-$version-from-bookmark.http" \
  "GET /api/v1/namespaces/$ns/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=$bookmark&timeoutSeconds=1 (the initial list's bookmark; a changed since)" \
  "$server/api/v1/namespaces/$ns/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=$bookmark&timeoutSeconds=1"
record "table/configmaps-table-$version.http" \
  "GET /api/v1/namespaces/$ns/configmaps?includeObject=Metadata with Accept: application/json;as=Table;v=v1;g=meta.k8s.io, application/json" \
  -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io, application/json' "$server/api/v1/namespaces/$ns/configmaps?includeObject=Metadata"

# Status errors: not found, a server-side apply conflict, a stale replace, an invalid object.
record "status/not-found-404-$version.http" "GET a ConfigMap that does not exist" "$server/api/v1/namespaces/$ns/configmaps/missing"
record "status/apply-conflict-409-$version.http" \
  "PATCH (apply) data.k of ConfigMap a as field manager \"other\": recorder owns it" \
  -X PATCH -H 'Content-Type: application/apply-patch+yaml' \
  --data '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"other"}}' \
  "$server/api/v1/namespaces/$ns/configmaps/a?fieldManager=other"
record "status/stale-replace-409-$version.http" "PUT ConfigMap a with resourceVersion 1 (long gone)" \
  -X PUT -H 'Content-Type: application/json' \
  --data '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"1"},"data":{"k":"x"}}' \
  "$server/api/v1/namespaces/$ns/configmaps/a"
record "status/invalid-422-$version.http" "POST a ConfigMap whose label value is invalid" \
  -X POST -H 'Content-Type: application/json' \
  --data '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad","labels":{"tier":"not a valid value!"}}}' \
  "$server/api/v1/namespaces/$ns/configmaps"
record "status/unknown-field-400-$version.http" "POST a ConfigMap with an unknown and a duplicate field, fieldValidation=Strict" \
  -X POST -H 'Content-Type: application/json' \
  --data '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"strict"},"data":{"a":"1","a":"2"},"spec":{}}' \
  "$server/api/v1/namespaces/$ns/configmaps?fieldValidation=Strict&dryRun=All"

# Warnings: the same unknown and duplicate field under the server's default (Warn), and a
# deprecated CRD version.
record "transport/field-warnings-$version.http" "POST a ConfigMap with an unknown and a duplicate field, no fieldValidation (the server's default: Warn), dryRun=All" \
  -X POST -H 'Content-Type: application/json' \
  --data '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"warned"},"data":{"a":"1","a":"2"},"spec":{}}' \
  "$server/api/v1/namespaces/$ns/configmaps?dryRun=All"
api -o /dev/null -X POST -H 'Content-Type: application/json' "$server/apis/apiextensions.k8s.io/v1/customresourcedefinitions" --data '{
  "apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"transcripts.fieldscope.dev"},
  "spec":{"group":"fieldscope.dev","scope":"Namespaced","names":{"plural":"transcripts","singular":"transcript","kind":"Transcript"},
    "versions":[{"name":"v1","served":true,"storage":true,"deprecated":true,
      "deprecationWarning":"fieldscope.dev/v1 Transcript is deprecated",
      "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}'
for _ in $(seq 1 50); do api -fs -o /dev/null "$server/apis/fieldscope.dev/v1/namespaces/$ns/transcripts" && break; sleep 0.2; done
record "transport/deprecated-warning-$version.http" "GET a CRD version marked deprecated" \
  "$server/apis/fieldscope.dev/v1/namespaces/$ns/transcripts"
