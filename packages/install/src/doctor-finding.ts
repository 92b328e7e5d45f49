/**
 * What `skillport doctor` finds (decision 0352): the lockfile against the disk, for the canonical copies and for
 * each agent's folder.
 */
export type DoctorCode =
  | "missing"
  | "modified"
  | "extra"
  | "missing-link"
  | "broken-link"
  | "not-ours"
  | "modified-copy"
  | "shadowed"
  | "link-ignored"
  | "not-visible"
  | "collision"
  | "hidden"
  | "over-budget";

export interface DoctorFinding {
  code: DoctorCode;
  skill: string;
  /** The agent the finding is about (links, copies, shadowing). */
  agent?: string;
  /** Project- or home-relative path of the entry. */
  path: string;
  message: string;
  /** One line: what to do. */
  fix: string;
  /** `doctor --fix` repairs it without losing anything: restores verified bytes, relinks, or removes a dangling link of ours. */
  fixable: boolean;
  /** Something to know, not a problem (`hidden`): it does not make `doctor` exit 1. */
  note?: boolean;
}
