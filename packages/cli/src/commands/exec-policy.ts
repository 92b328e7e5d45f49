import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import {
  effectivePolicy,
  parseDestination,
  parseFrontmatter,
  readDeclaration,
  type EffectivePolicy,
  type NetworkDestination,
  type OperatorPolicy,
} from "@skillport/core";
import { CliError } from "../io.js";

const MAX_SKILL_MD_BYTES = 1024 * 1024;

/**
 * `exec --skill`: the skill's declaration intersected with what the operator allows on the command line (decision
 * 0364), and the variables of this process the operator lets through.
 */
export async function skillLeastPrivilege(
  skillDir: string,
  options: { allowNet?: string; allowEnv?: string; skill?: string },
): Promise<{ policy: EffectivePolicy; env: Record<string, string>; label: string }> {
  const file = path.join(skillDir, "SKILL.md");
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw new CliError(`--skill ${JSON.stringify(options.skill)}: no SKILL.md there`);
  if (info.size > MAX_SKILL_MD_BYTES)
    throw new CliError(`--skill ${JSON.stringify(options.skill)}: SKILL.md is larger than ${MAX_SKILL_MD_BYTES} bytes`);
  const parsed = parseFrontmatter(await readFile(file), { file: "SKILL.md" });
  const { declaration, problems } = readDeclaration(parsed.frontmatter?.metadata);
  const bad = problems.find((p) => p.severity === "error");
  if (bad !== undefined)
    throw new CliError(
      `--skill ${JSON.stringify(options.skill)}: ${bad.message} (skillport validate shows every problem)`,
    );
  const operator: OperatorPolicy = {};
  if (options.allowNet !== undefined)
    operator.network = options.allowNet.trim() === "public" ? "public" : destinations(options.allowNet);
  const allowEnv = (options.allowEnv ?? "").split(/[\s,]+/).filter(Boolean);
  operator.env = allowEnv;
  const env: Record<string, string> = {};
  for (const name of allowEnv) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { policy: effectivePolicy(operator, declaration), env, label: path.basename(skillDir) };
}

/** `--allow-net`: entries as a skill writes them; a `private:` prefix allows loopback/private answers. */
function destinations(text: string): NetworkDestination[] {
  const out: NetworkDestination[] = [];
  for (const word of text.split(/[\s,]+/).filter(Boolean)) {
    const isPrivate = word.startsWith("private:");
    const parsed = parseDestination(isPrivate ? word.slice("private:".length) : word, isPrivate);
    if (typeof parsed === "string") throw new CliError(`--allow-net: ${parsed}`);
    out.push(parsed);
  }
  return out;
}
