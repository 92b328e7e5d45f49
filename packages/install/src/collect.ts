import { isSafeResourcePath, isSafeSkillId, validateSkillMd, type SkillProvider } from "@skillport/core";
import type { SkillFileBytes } from "./digest.js";
import { InstallError } from "./errors.js";

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
  const listed = await provider.listFiles(id);
  const files: SkillFileBytes[] = [];
  for (const file of listed) {
    if (!isSafeResourcePath(file.path) && file.path !== "SKILL.md")
      throw new InstallError(`${id}: unsafe file path ${JSON.stringify(file.path)}`, "INSTALL_REFUSED");
    files.push({ path: file.path, bytes: await provider.readFile(id, file.path) });
  }
  const skillMd = files.find((f) => f.path === "SKILL.md");
  if (!skillMd) throw new InstallError(`${id}: no SKILL.md`, "INSTALL_REFUSED");
  const folder = id.split("/").pop() ?? id;
  const result = validateSkillMd(skillMd.bytes, {
    profile: "spec",
    dirName: folder,
    file: `${id}/SKILL.md`,
    lint: false,
  });
  const firstError = result.diagnostics.find((d) => d.severity === "error");
  const name = result.parsed.frontmatter?.name;
  if (!result.valid || typeof name !== "string" || !isSafeSkillId(name)) {
    const where = firstError?.line !== undefined ? `:${firstError.line}` : "";
    throw new InstallError(
      `${id}/SKILL.md${where}: ${firstError?.message ?? "no valid name"} (nothing was installed)`,
      "INSTALL_REFUSED",
    );
  }
  const description = result.parsed.frontmatter?.description;
  return { id, name, description: typeof description === "string" ? description : "", files };
}
