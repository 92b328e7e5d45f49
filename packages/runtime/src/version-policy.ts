import path from "node:path";
import {
  effectivePolicy,
  parseFrontmatter,
  readDeclaration,
  type EffectivePolicy,
  type OperatorPolicy,
  type SkillDeclaration,
} from "@skillport/core";
import { openConfined } from "@skillport/fs";
import { scanDeployedSkills } from "./scan.js";

const MAX_SKILL_MD_BYTES = 1024 * 1024;

/**
 * The rights of a deployed version's code — its entrypoint, and commands an agent runs in its folder (decision
 * 0364): intersection(operator, union of the declarations of the skills it ships). A version none of whose skills
 * declares anything gets today's default (no network). Declarations are read from the version's own folder.
 */
export async function versionPolicy(
  projectsDir: string,
  versionId: string,
  operator: OperatorPolicy,
): Promise<EffectivePolicy> {
  const { skills } = await scanDeployedSkills(projectsDir, [versionId]);
  const declarations: SkillDeclaration[] = [];
  for (const skill of skills) {
    let bytes: Uint8Array | undefined;
    try {
      const file = openConfined(skill.directory, path.basename(skill.skillMdPath));
      try {
        bytes = file.readAllSync(MAX_SKILL_MD_BYTES);
      } finally {
        file.close();
      }
    } catch {
      continue;
    }
    if (bytes === undefined) continue;
    const { declaration } = readDeclaration(parseFrontmatter(bytes).frontmatter?.metadata);
    if (declaration !== undefined) declarations.push(declaration);
  }
  return effectivePolicy(operator, declarations.length === 0 ? undefined : unionOf(declarations));
}

/** What any of the skills declares: destinations, variables, programs and folders of all, the longest budgets. */
function unionOf(declarations: readonly SkillDeclaration[]): SkillDeclaration {
  const union: SkillDeclaration = { network: [], env: [], bins: [], writes: [] };
  for (const d of declarations) {
    union.network.push(...d.network);
    for (const [list, add] of [
      [union.env, d.env],
      [union.bins, d.bins],
      [union.writes, d.writes],
    ] as const)
      for (const x of add) if (!list.includes(x)) list.push(x);
    if (d.timeoutMs !== undefined) union.timeoutMs = Math.max(union.timeoutMs ?? 0, d.timeoutMs);
    if (d.maxMemoryBytes !== undefined) union.maxMemoryBytes = Math.max(union.maxMemoryBytes ?? 0, d.maxMemoryBytes);
  }
  return union;
}
