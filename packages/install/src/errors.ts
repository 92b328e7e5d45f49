import { AgentSkillsError } from "@skillport/core";

/**
 * Codes: INSTALL_USAGE (a bad request: unknown agent, no such skill — exit 2), INSTALL_REFUSED (a skill that fails
 * validation, a folder it would shadow — exit 1), INSTALL_DRIFT (content differs from the lock — exit 1),
 * INSTALL_LOCK (an unreadable lockfile — exit 1), INSTALL_IO (the file system refused a write — exit 2).
 */
export type InstallErrorCode = "INSTALL_USAGE" | "INSTALL_REFUSED" | "INSTALL_DRIFT" | "INSTALL_LOCK" | "INSTALL_IO";

export class InstallError extends AgentSkillsError<InstallErrorCode> {
  constructor(message: string, code: InstallErrorCode) {
    super(message, { code });
    this.name = "InstallError";
  }
}
