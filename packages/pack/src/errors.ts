import { AgentSkillsError } from "@skillport/core";

/** Why an archive was refused. Stable: tests and callers branch on it. */
export type ArchiveRejection =
  | "unknown-format"
  | "empty"
  | "corrupt"
  | "encrypted"
  | "unsupported-compression"
  | "name-encoding"
  | "symlink"
  | "hardlink"
  | "special-file"
  | "duplicate"
  | "path-conflict"
  | "size-mismatch"
  | "layout";

/**
 * An archive refused before anything was written. `entry` names the offending entry (archive-relative) when there
 * is one. Unsafe paths raise InvalidPathError and limits LimitExceededError instead, as everywhere else.
 */
export class ArchiveError extends AgentSkillsError {
  readonly reason: ArchiveRejection;
  readonly entry: string | undefined;
  constructor(reason: ArchiveRejection, message: string, entry?: string) {
    super(message, { code: "ARCHIVE_REJECTED" });
    this.reason = reason;
    this.entry = entry;
  }
}
