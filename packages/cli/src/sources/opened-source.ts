import type { SkillProvider, SkillRepository } from "@skillport/core";

/** A source the CLI opened from one root argument. */
export interface OpenedSource {
  /** Names it in messages, JSON and qualified ids; never holds a password. */
  label: string;
  provider: SkillProvider;
  /** Serve only this skill of the provider (the argument named one skill folder). */
  only?: string;
  /** A path root: the real path of the folder of skills served (of the one skill folder, with `only`); caches key by it. */
  rootPath?: string;
  /** Present when the source was opened for writing. */
  repository?: SkillRepository;
  /**
   * What the source looked at and does not serve (a remote file over the limit, a folder without SKILL.md), as notes;
   * `severity: "error"` marks a skill that is there but refused (a SKILL.md link leaving it, a name not UTF-8).
   */
  skipped?: () => {
    folder: string;
    path?: string;
    code: string;
    message: string;
    severity?: "error" | "warning" | "info";
  }[];
  close(): Promise<void>;
}

export interface OpenSourceOptions {
  cwd: string;
  /** Open for writing (`copy`'s target): create the folder or the tables when missing. Default false. */
  write?: boolean;
  /** Where a source says something the user should know (a remote served from an earlier copy). Default: nowhere. */
  warn?: (message: string) => void;
  /**
   * Told once a remote source's first request is on its way (a clone started, an index requested): work that does not
   * need the answer can use the wait (decision 0444). Never called for a local source. Must not throw.
   */
  onFetch?: () => void;
  /** A path root read as a folder of skills keeps its metadata index in this file (by the folder's real path). */
  metadataIndex?: (rootReal: string) => string | undefined;
}
