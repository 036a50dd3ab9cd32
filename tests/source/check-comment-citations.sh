#!/usr/bin/env bash
# Fails when a tracked file cites a document a clone of this repository does not have: the
# project's private Kubernetes API notes ("API brief 4.3", "brief section 2", "brief 2.8"), the
# documents the project grew from ("the seeds'"), or an issue number of its private tracker
# ("issue 15", "Issue 13:"). Cite what anyone can open instead: a Kubernetes source path
# (k8s.io/apimachinery/pkg/...), a kubernetes.io page, a docs/ page of this repository, or state
# the fact itself.
#   check-comment-citations.sh SOURCE_DIR
set -euo pipefail
root="${1:?usage: check-comment-citations.sh SOURCE_DIR}"
cd "$root"

allowed=()

# The files to read: what git tracks, or (an unpacked source archive) every file outside build/.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files)
else
  mapfile -t files < <(find . -path ./build -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||')
fi

self="tests/source/check-comment-citations.sh"
pattern="API brief|brief section|\bbrief [0-9]|\bbrief's|\bthe seeds'|\bissues? #?[0-9]+"
failed=0
for file in "${files[@]}"; do
  [ "$file" = "$self" ] && continue
  [ -f "$file" ] || continue
  skip=0
  for a in "${allowed[@]}"; do [ "$file" = "$a" ] && skip=1 && break; done
  [ "$skip" = 1 ] && continue
  # -I: binary files (images, databases) are not read.
  if hits=$(grep -nIiE "$pattern" "$file"); then
    while IFS= read -r hit; do
      echo "$file:$hit" >&2
    done <<<"$hits"
    failed=1
  fi
done

if [ "$failed" = 1 ]; then
  echo "cite a Kubernetes source path, a kubernetes.io page or docs/ instead (or state the fact)" >&2
else
  echo "no file cites the API brief or an issue number"
fi
exit "$failed"
