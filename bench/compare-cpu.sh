#!/usr/bin/env bash
# Paired before/after CPU time (user + sys of the whole process tree, git and sandboxes included) of two builds of the
# CLI, run alternately: CPU time is what a shared, loaded host distorts least; wall time it does not spare.
#   bench/compare-cpu.sh <old cli.js> <new cli.js> [rounds]
# e.g. build the tree at an older commit in a second checkout and pass both packages/cli/dist/cli.js. Prints medians
# and means (the means resolve below /usr/bin/time's 10 ms ticks).
set -u
OLD=${1:?old cli.js}; NEW=${2:?new cli.js}; N=${3:-11}
REPO=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
mkdir -p "$W/skills" "$W/ws-old" "$W/ws-new" "$W/repo"
node -e '
  const fs = require("fs"), path = require("path");
  for (const [root, n] of [[process.argv[1], 1000], [process.argv[2], 2000]]) for (let i = 0; i < n; i++) {
    const d = path.join(root, `skill-${String(i).padStart(4, "0")}`);
    fs.mkdirSync(path.join(d, "scripts"), { recursive: true });
    fs.writeFileSync(path.join(d, "SKILL.md"), `---\nname: skill-${String(i).padStart(4, "0")}\ndescription: Does thing number ${i} with files and data. Use when the user asks for thing ${i}.\nlicense: MIT\n---\n# Skill ${i}\n\nRun scripts/run.sh with the input file.\n${"More words here. ".repeat(40)}\n`);
    fs.writeFileSync(path.join(d, "scripts", "run.sh"), "echo hi\n");
  }' "$W/skills" "$W/repo/skills"
git -C "$W/repo" init -q -b main && git -C "$W/repo" add -A && git -C "$W/repo" -c user.email=b@e -c user.name=b commit -qm skills
GIT="git+file://$W/repo#main:skills"

measure() { # label, then a command with CLI and SIDE placeholders; FRESH=dir removes dir-SIDE before each run
  local label=$1; shift
  local o=() n=()
  for _ in $(seq 1 "$N"); do
    for side in old new; do
      local cli=$OLD; [ "$side" = new ] && cli=$NEW
      local cmd="${*//CLI/$cli}"; cmd="${cmd//SIDE/$side}"
      [ -n "${FRESH:-}" ] && rm -rf "$FRESH-$side"
      /usr/bin/time -o "$W/t" -f "%U %S" bash -c "$cmd" >/dev/null 2>&1
      local t; t=$(tail -1 "$W/t" | awk '{printf "%.0f", ($1+$2)*1000}')
      if [ "$side" = old ]; then o+=("$t"); else n+=("$t"); fi
    done
  done
  local stats='{a[NR]=$1; s+=$1} END{printf "%d %.1f", a[int((NR+1)/2)], s/NR}'
  read -r mo ao < <(printf '%s\n' "${o[@]}" | sort -n | awk "$stats")
  read -r mn an < <(printf '%s\n' "${n[@]}" | sort -n | awk "$stats")
  printf '| %s | %s ms | %s ms | %.2f | %.1f → %.1f ms (%.3f) |\n' "$label" "$mo" "$mn" "$(awk -v a="$mo" -v b="$mn" 'BEGIN{print b/a}')" "$ao" "$an" "$(awk -v a="$ao" -v b="$an" 'BEGIN{print b/a}')"
}
echo "| command | CPU old (median of $N) | CPU new | new/old | means (new/old) |"
echo "|---|---|---|---|---|"
measure "--version" node CLI --version
measure "list, 1,000 skills" node CLI list "$W/skills"
measure "validate, 1,000 skills (spec, lint)" node CLI validate "$W/skills"
measure "search, 1,000 skills" node CLI search "thing 500 data" "$W/skills" --cache-dir "$W/cache-SIDE"
measure "prompt, 1,000 skills" node CLI prompt "$W/skills"
measure "pack examples/package" node CLI pack "$REPO/examples/package" --output "$W/pkg-SIDE.zip" --json
FRESH="$W/un" measure "unpack that package" node CLI unpack "$W/pkg-SIDE.zip" "$W/un-SIDE"
measure "exec --sandbox bubblewrap -- true" node CLI exec --workspace "$W/ws-SIDE" --sandbox bubblewrap -- true
measure "exec --sandbox process -- true" node CLI exec --workspace "$W/ws-SIDE" --sandbox process -- true
FRESH="$W/gitcache" measure "git source, first sync of 2,000 skills" SKILLPORT_CACHE_DIR="$W/gitcache-SIDE" node CLI list "$GIT"
measure "git source, warm list of 2,000 skills" SKILLPORT_CACHE_DIR="$W/gitcache-SIDE" node CLI list "$GIT"
