#!/usr/bin/env bash
# Runs once per deployed version, from the version's root directory (cd projects/<versionId> && bash entrypoint.sh).
# Idempotent: running it again leaves the same state behind.
set -euo pipefail

# Install Python dependencies only when requirements.txt lists any (this example needs none).
if grep -qvE '^[[:space:]]*(#|$)' requirements.txt 2>/dev/null; then
  pip install --no-cache-dir -r requirements.txt
fi

# Observable result: a marker naming the skills this version ships.
mkdir -p .runtime
ls skills > .runtime/skills.txt
printf 'initialized\n' > .runtime/ready
echo "entrypoint: $(wc -l < .runtime/skills.txt | tr -d ' ') skills ready"
