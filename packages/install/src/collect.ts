import {
  isSafeResourcePath,
  isSafeSkillId,
  parseFrontmatter,
  validateSkillMd,
  type SkillProvider,
} from "@skillport/core";
import { mapLimit, specNameProblems } from "@skillport/core/internal";
import type { SkillFileBytes } from "./digest.js";
import { InstallError } from "./errors.js";

/** Reads of one skill's files in flight at once. */
const READ_CONCURRENCY = 8;

/** A skill read whole from a source and validated, not yet written anywhere. */
export interface CollectedSkill {
  /** The id in its source. */
  id: string;
  /** Its frontmatter name, which is the folder name it is installed under. */
  name: string;
  description: string;
  files: SkillFileBytes[];
}

/**
 * Reads every file of skill `id` and validates SKILL.md against the spec profile with the source folder's name, so a
 * skill whose frontmatter name differs from its folder, or that fails any spec rule, is refused (INSTALL_REFUSED)
 * before anything is written (decision 0302). Nothing in the skill runs.
 */
export async function collectSkill(provider: SkillProvider, id: string): Promise<CollectedSkill> {
  const files = await readSkillFiles(provider, id);
  const skillMd = files.find((f) => f.path === "SKILL.md");
  if (!skillMd) throw new InstallError(`${id}: no SKILL.md`, "INSTALL_REFUSED");
  const folder = id.split("/").pop() ?? id;
  const { name, description } = validated(skillMd.bytes, folder, `${id}/SKILL.md`);
  return { id, name, description, files };
}

/**
 * The skill installed under another name (`add --as`, decision 0420): the `name:` line of its SKILL.md's frontmatter
 * is rewritten to `as` and nothing else changes, so the folder name still equals the frontmatter name and the bytes
 * are a pure function of the upstream bytes and `as` (a restore rewrites them again and gets the same digest). The
 * result is validated like any skill; a name that fails the spec refuses it.
 */
export function renameSkill(skill: CollectedSkill, as: string): CollectedSkill {
  if (skill.name === as) return skill;
  const files = skill.files.map((f) =>
    f.path === "SKILL.md" ? { path: f.path, bytes: renamed(skill, f.bytes, as) } : f,
  );
  const skillMd = files.find((f) => f.path === "SKILL.md") as SkillFileBytes;
  const { name, description } = validated(skillMd.bytes, as, `${skill.id}/SKILL.md (as ${as})`);
  return { id: skill.id, name, description, files };
}

function renamed(skill: CollectedSkill, bytes: Uint8Array, as: string): Uint8Array {
  const problem = specNameProblems(as)[0]?.message;
  if (!isSafeSkillId(as) || as.includes("/") || problem !== undefined)
    throw new InstallError(
      `--as ${JSON.stringify(as)} is not a skill name${problem !== undefined ? ` (${problem})` : ""}`,
      "INSTALL_USAGE",
    );
  const line = parseFrontmatter(bytes).positions.get("name")?.line;
  const text = Buffer.from(bytes).toString("utf8");
  const lines = text.split("\n");
  const at = line === undefined ? -1 : line - 1;
  const old = lines[at];
  const value = old === undefined ? undefined : /^name[ \t]*:[ \t]*(\S.*)?$/.exec(old.replace(/\r$/, ""))?.[1];
  if (old === undefined || value === undefined || /^[>|&*!]/.test(value))
    throw new InstallError(
      `${skill.id}/SKILL.md: its name is not on one "name:" line; it cannot be renamed`,
      "INSTALL_REFUSED",
    );
  lines[at] = `name: ${as}${old.endsWith("\r") ? "\r" : ""}`;
  return Buffer.from(lines.join("\n"), "utf8");
}

async function readSkillFiles(provider: SkillProvider, id: string): Promise<SkillFileBytes[]> {
  const listed = await provider.listFiles(id);
  for (const file of listed)
    if (!isSafeResourcePath(file.path) && file.path !== "SKILL.md")
      throw new InstallError(`${id}: unsafe file path ${JSON.stringify(file.path)}`, "INSTALL_REFUSED");
  // A few reads in flight at once: the provider's checks and reads overlap (order kept).
  return mapLimit(listed, READ_CONCURRENCY, async (file) => ({
    path: file.path,
    bytes: await provider.readFile(id, file.path),
  }));
}

function validated(bytes: Uint8Array, folder: string, file: string): { name: string; description: string } {
  const result = validateSkillMd(bytes, { profile: "spec", dirName: folder, file, lint: false });
  const firstError = result.diagnostics.find((d) => d.severity === "error");
  const name = result.parsed.frontmatter?.name;
  if (!result.valid || typeof name !== "string" || !isSafeSkillId(name)) {
    const where = firstError?.line !== undefined ? `:${firstError.line}` : "";
    throw new InstallError(
      `${file}${where}: ${firstError?.message ?? "no valid name"} (nothing was installed)`,
      "INSTALL_REFUSED",
    );
  }
  const description = result.parsed.frontmatter?.description;
  return { name, description: typeof description === "string" ? description : "" };
}
