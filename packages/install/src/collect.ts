import {
  isSafeResourcePath,
  isSafeSkillId,
  parseFrontmatter,
  validateSkillMd,
  type Diagnostic,
  type SkillProvider,
} from "@skillport/core";
import { mapLimit, specNameProblems } from "@skillport/core/internal";
import type { SkillFileBytes } from "./digest.js";
import { InstallError } from "./errors.js";

/** A skill without a usable description is never offered to a model: refused like a broken name. */
const REFUSED_DESCRIPTION = new Set(["description-missing", "description-empty", "description-not-string"]);

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
  /**
   * What the spec's strict rules find that agents still load (fields it does not list, flow-style YAML, …): shown
   * as warnings, never a reason to refuse (decision 0357).
   */
  notes: Diagnostic[];
}

/**
 * Reads every file of skill `id` and validates SKILL.md with the source folder's name, so a skill whose frontmatter
 * name differs from its folder, breaks the spec's name rules, or that agents could not load (no frontmatter, YAML that
 * does not parse, no description) is refused (INSTALL_REFUSED) before anything is written (decisions 0302, 0357).
 * Nothing in the skill runs.
 */
export async function collectSkill(provider: SkillProvider, id: string): Promise<CollectedSkill> {
  const files = await readSkillFiles(provider, id);
  const skillMd = files.find((f) => f.path === "SKILL.md");
  if (!skillMd) throw new InstallError(`${id}: no SKILL.md`, "INSTALL_REFUSED");
  const folder = id.split("/").pop() ?? id;
  const { name, description, notes } = validated(skillMd.bytes, folder, `${id}/SKILL.md`);
  return { id, name, description, files, notes };
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
  const { name, description, notes } = validated(skillMd.bytes, as, `${skill.id}/SKILL.md (as ${as})`);
  return { id: skill.id, name, description, files, notes };
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

/**
 * Refuses what breaks loading or naming; keeps the spec's other findings as notes. The lenient profile (what loading
 * uses) decides loading; the spec's name rules and the folder-name match decide naming (decision 0302).
 */
function validated(
  bytes: Uint8Array,
  folder: string,
  file: string,
): { name: string; description: string; notes: Diagnostic[] } {
  const spec = validateSkillMd(bytes, { profile: "spec", dirName: folder, file, lint: false });
  const loads = validateSkillMd(bytes, { profile: "lenient", dirName: folder, file, lint: false });
  const refusing = (d: Diagnostic) =>
    loads.diagnostics.some((l) => l.severity === "error" && l.code === d.code) ||
    d.code.startsWith("name-") ||
    d.code.startsWith("frontmatter-") ||
    REFUSED_DESCRIPTION.has(d.code);
  const errors = spec.diagnostics.filter((d) => d.severity === "error");
  const firstError = [...loads.diagnostics.filter((d) => d.severity === "error"), ...errors.filter(refusing)][0];
  const name = spec.parsed.frontmatter?.name;
  if (firstError !== undefined || typeof name !== "string" || !isSafeSkillId(name)) {
    const where = firstError?.line !== undefined ? `:${firstError.line}` : "";
    throw new InstallError(
      `${file}${where}: ${firstError?.message ?? "no valid name"} (nothing was installed)`,
      "INSTALL_REFUSED",
    );
  }
  const description = spec.parsed.frontmatter?.description;
  return {
    name,
    description: typeof description === "string" ? description : "",
    notes: errors.map((d) => ({ ...d, severity: "warning" as const, file: d.file ?? file })),
  };
}
