#!/usr/bin/env bash
# Fails when a future's result is read outside the boundary helper (core/base/boundary.h).
# QFuture::result()/takeResult()/results()/resultAt() and QFutureWatcher::result() rethrow what
# the worker threw, on the reading thread, where nothing catches it; core::takeResult() turns
# that into an Error. The same method names on hash objects are not futures: each such call is
# allowed below by file and receiver, and only if that file declares the receiver with the type
# named (so a future of the same name is still caught).
#   check-future-reads.sh SOURCE_DIR
set -euo pipefail
root="${1:?usage: check-future-reads.sh SOURCE_DIR}"
cd "$root"

# file | receiver | declared type | why it is not a future
allowed=(
  "app/services/historysource.cpp|h|QCryptographicHash|cluster identity hash"
  "kube/execplugin.cpp|h|QCryptographicHash|plugin identity hash"
  "core/history/secretredaction.cpp|mac|QMessageAuthenticationCode|Secret value HMAC"
)

# The product folders: the top folders of the layer table (cmake/FieldscopeLayers.cmake), the one
# list of where the product's code lives.
mapfile -t product < <(sed -n '/^set(FIELDSCOPE_LAYERS/,/^)/s/^[[:space:]]*"\([a-z_]*\)[:/].*/\1/p' cmake/FieldscopeLayers.cmake | awk '!seen[$0]++')
[ "${#product[@]}" -gt 0 ] || { echo "no folders in cmake/FieldscopeLayers.cmake's table" >&2; exit 1; }
failed=0
while IFS= read -r hit; do
  file="${hit%%:*}"
  rest="${hit#*:}"
  line="${rest%%:*}"
  text="${rest#*:}"
  [ "$file" = "core/base/boundary.h" ] && continue # the helper itself
  ok=0
  for entry in "${allowed[@]}"; do
    IFS='|' read -r afile recv type _why <<<"$entry"
    [ "$file" = "$afile" ] || continue
    # The call's receiver is exactly `recv` and the file declares `type recv`.
    if grep -qE "(^|[^A-Za-z0-9_>.])${recv}\.(result|takeResult|results|resultAt)\(" <<<"$text" \
       && ! grep -qE "(\.|->)(result|takeResult|results|resultAt)\(" <<<"${text//${recv}./}" \
       && grep -qE "\b${type}\s+${recv}\b" "$file"; then
      ok=1
    fi
  done
  if [ "$ok" = 0 ]; then
    echo "$file:$line: a future's result read outside core::takeResult (core/base/boundary.h):$text" >&2
    failed=1
  fi
done < <(grep -rnE '(\.|->)[[:space:]]*(result|takeResult|results|resultAt)[[:space:]]*\(' \
           --include='*.cpp' --include='*.h' "${product[@]}" || true)

if [ "$failed" = 0 ]; then
  echo "no future is read outside core/base/boundary.h"
fi
exit "$failed"
