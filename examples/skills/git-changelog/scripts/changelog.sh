#!/bin/sh
# Print a Markdown changelog from git history, grouped by Conventional Commit type.
set -eu
since="${1:-$(git describe --tags --abbrev=0 2>/dev/null || git rev-list --max-parents=0 HEAD | tail -n 1)}"
git log --no-merges --format='%s' "$since..HEAD" | awk '
  /^[a-z]+(\([^)]*\))?!:/ || /BREAKING CHANGE/ { breaking[++nb] = $0; next }
  /^feat(\(|:)/ { feat[++nf] = $0; next }
  /^fix(\(|:)/  { fix[++nx] = $0; next }
  { other[++no] = $0 }
  END {
    if (nb) { print "### Breaking"; for (i = 1; i <= nb; i++) print "- " breaking[i]; print "" }
    if (nf) { print "### Features"; for (i = 1; i <= nf; i++) print "- " feat[i]; print "" }
    if (nx) { print "### Fixes"; for (i = 1; i <= nx; i++) print "- " fix[i]; print "" }
    if (no) { print "### Other"; for (i = 1; i <= no; i++) print "- " other[i] }
  }'
