import { existsSync } from "node:fs";
import { z } from "zod";
import {
  effectivePolicy,
  InvalidPathError,
  normalizeResourcePath,
  readDeclaration,
  type EffectivePolicy,
} from "@skillport/core";
import { scriptInterpreter, scriptPath, type RemoteFile } from "@skillport/core/internal";
import type { BoxSkill } from "../box-skill.js";
import { resolveConfined } from "@skillport/fs";
import { defineTool, errorResult, messageOf, type Tool } from "../tool.js";
import type { CodeExecutionHost } from "./tool-host.js";
import { runInSandbox, runRemotely } from "./shell-tool.js";

export const SKILL_SCRIPT_TOOL = "run_skill_script";

const input = z.object({
  skillId: z.string().describe("The skill whose script to run (it must be loaded first)."),
  script: z
    .string()
    .describe('The script\'s path in the skill, e.g. "scripts/report.py" (a bare name means scripts/<name>).'),
  args: z.array(z.string()).optional().describe("Arguments, each passed as is (no shell)."),
  timeout: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("The maximum time (in seconds) allowed for the script to run"),
});

/**
 * `run_skill_script(skillId, script, args?)`: runs one script of a LOADED skill from its uploaded folder, in the
 * sandbox, with an exact argv (nothing for a shell to interpret). Bound to every skill's tool group, so it appears
 * once the model has loaded a skill.
 */
export function createScriptTool(exec: CodeExecutionHost): Tool {
  return defineTool({
    name: SKILL_SCRIPT_TOOL,
    description:
      "Run a script of a loaded skill (Python, JavaScript or shell) in the sandbox and return its return code, standard output and standard error.",
    input,
    handler: async ({ skillId, script, args, timeout }, context) => {
      const skill = exec.host?.activeSkill(context.sessionId, skillId.trim());
      if (!skill)
        return errorResult(
          `Error: skill ${JSON.stringify(skillId)} is not loaded in this session; load it with load_skill_through_path first.`,
        );
      const rel = scriptPath(script);
      try {
        normalizeResourcePath(rel);
      } catch (error) {
        return errorResult(
          `Error: script path ${JSON.stringify(script)} is not allowed: ${error instanceof InvalidPathError ? error.reason : messageOf(error)}`,
        );
      }
      const interpreter = scriptInterpreter(rel);
      if (!interpreter)
        return errorResult(
          `Error: ${JSON.stringify(rel)} is not a .py, .js or .sh script; run it with execute_shell_command if that is allowed.`,
        );
      const seconds = Math.min(timeout ?? 300, 600);
      const remote = exec.settings.remote;
      if (remote !== undefined) {
        // The script and its neighbours travel with the run (the runner has no copy of this skill).
        let files: RemoteFile[];
        try {
          files = (await exec.runFiles(skill)).files;
        } catch (error) {
          return errorResult(`Error: the files of skill ${skill.id} could not be read (${messageOf(error)}).`);
        }
        if (!files.some((f) => f.path === rel))
          return errorResult(`Error: script ${JSON.stringify(rel)} of skill ${skill.id} is not available to run.`);
        return runRemotely(remote, {
          sessionId: context.sessionId,
          run: { kind: "script", interpreter, script: rel, args: args ?? [], files },
          timeoutSeconds: seconds,
          ...(context.signal && { signal: context.signal }),
        });
      }
      await exec.prepareSkill(skill);
      const dir = exec.skillDir(skill);
      let file: string;
      try {
        if (!existsSync(dir)) throw new Error("no files of this skill were copied for running");
        file = await resolveConfined(dir, rel);
      } catch (error) {
        return errorResult(
          `Error: script ${JSON.stringify(rel)} of skill ${skill.id} is not available to run (${messageOf(error)}).`,
        );
      }
      const space = exec.space(context.sessionId);
      return runInSandbox(
        space,
        [interpreter, file, ...(args ?? [])],
        seconds,
        64 * 1024,
        context.signal,
        undefined,
        scriptPolicy(exec, skill) ?? space.policy,
      );
    },
  });
}

/** intersection(operator, the skill's declaration) when the operator set a policy (decision 0364). */
function scriptPolicy(exec: CodeExecutionHost, skill: BoxSkill): EffectivePolicy | undefined {
  const operator = exec.settings.sandbox.leastPrivilege;
  return operator === undefined
    ? undefined
    : effectivePolicy(operator, readDeclaration(skill.frontmatter.metadata).declaration);
}
