import type { OperatorPolicy } from "@skillport/core";
import type { BoxSkill } from "../box-skill.js";
import type { WorkSpace } from "./work-space.js";
import type { RemoteCodeRunner, RemoteFile } from "@skillport/core/internal";

/**
 * What the code-execution tools use of their CodeExecution (builder.ts), which creates them: the tools depend on this
 * face, not on the class, so neither module imports the other.
 */
export interface CodeExecutionHost {
  readonly settings: {
    readonly maxFileBytes: number;
    readonly maxListedEntries: number;
    readonly sandbox: { readonly leastPrivilege?: OperatorPolicy };
    readonly remote: RemoteCodeRunner | undefined;
  };
  /** Set by the box: which skill a session has loaded. */
  host: { activeSkill(sessionId: string, skillId: string): BoxSkill | undefined } | undefined;
  space(sessionId: string): WorkSpace;
  skillDir(skill: BoxSkill): string;
  prepareSkill(skill: BoxSkill): Promise<string | undefined>;
  runFiles(skill: BoxSkill): Promise<{ files: RemoteFile[]; listed: number }>;
}
