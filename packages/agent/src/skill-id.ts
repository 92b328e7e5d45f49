import { createHash } from "node:crypto";
import { isSafeSkillId } from "@skillport/core";

/** The session a box's own methods act on. */
export const DEFAULT_SESSION = "default";

/** AgentScope's skill id: `<name>_<source>` (e.g. `data_analysis_custom`). It may hold `/` or `:`; never use it as a path. */
export function skillIdOf(name: string, source: string): string {
  return `${name}_${source}`;
}

/**
 * A skill id as ONE safe directory name (upstream used ids like `git-owner/repo` as directory names and broke on
 * Windows): characters other than letters, digits, `.`, `_` and `-` become `_`, and when anything had to change, 8 hex
 * of the id's sha256 are appended so two ids never share a directory. The result passes core's `isSafeSkillId`.
 */
export function skillDirName(id: string): string {
  let name = id
    .normalize("NFKC")
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "_")
    .replace(/\.+$/, "_");
  if (name.length > 200) name = name.slice(0, 200);
  if (name === id && isSafeSkillId(name)) return name;
  const hash = createHash("sha256").update(id).digest("hex").slice(0, 8);
  name = `${name || "skill"}-${hash}`;
  return name;
}
