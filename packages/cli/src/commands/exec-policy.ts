import { realpath } from "node:fs/promises";
import path from "node:path";
import {
  effectivePolicy,
  parseDestination,
  readDeclaration,
  type EffectivePolicy,
  type NetworkDestination,
  type OperatorPolicy,
} from "@skillport/core";
import { SkillDirectory } from "@skillport/fs";
import { CliError } from "../io.js";

/**
 * `exec --skill`: the skill's declaration intersected with what the operator allows on the command line (decision
 * 0364), and the variables of this process the operator lets through.
 */
export async function skillLeastPrivilege(
  skillDir: string,
  options: { allowNet?: string; allowEnv?: string; skill?: string },
): Promise<{ policy: EffectivePolicy; env: Record<string, string>; label: string }> {
  // The one skill-folder rule (SKILL.md or skill.md, links kept inside, the size limit) and only the frontmatter read.
  const named = `--skill ${JSON.stringify(options.skill)}`;
  const dirReal = await realpath(skillDir).catch(() => undefined);
  const probe = dirReal === undefined ? undefined : SkillDirectory.probe(dirReal);
  if (!probe?.ok) throw new CliError(`${named}: ${probe?.problem.message ?? "no such folder"}`);
  const head = await probe.skill.readFrontmatter(probe.skill.file);
  if (head.frontmatter === undefined)
    throw new CliError(`${named}: ${head.diagnostics[0]?.message ?? "no frontmatter"}`);
  const { declaration, problems } = readDeclaration(head.frontmatter.metadata);
  const bad = problems.find((p) => p.severity === "error");
  if (bad !== undefined) throw new CliError(`${named}: ${bad.message} (skillport validate shows every problem)`);
  const { operator, env } = operatorPolicy(options);
  return { policy: effectivePolicy(operator, declaration), env, label: path.basename(skillDir) };
}

/**
 * What the operator allows on the command line (`exec --skill`, `deploy`): `--allow-net` (`public`, `none`, or
 * destinations), `--allow-env` (names), and the values of those variables in this process.
 */
export function operatorPolicy(options: { allowNet?: string; allowEnv?: string }): {
  operator: OperatorPolicy;
  env: Record<string, string>;
} {
  const operator: OperatorPolicy = {};
  const net = options.allowNet?.trim();
  if (net !== undefined) operator.network = net === "public" ? "public" : net === "none" ? "none" : destinations(net);
  const allowEnv = (options.allowEnv ?? "").split(/[\s,]+/).filter(Boolean);
  operator.env = allowEnv;
  const env: Record<string, string> = {};
  for (const name of allowEnv) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { operator, env };
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

/** `exec --trace` without `--skill`: the rights of a run with no declaration (today's default), observed. */
export function undeclaredPolicy(): EffectivePolicy {
  return effectivePolicy({}, undefined);
}
