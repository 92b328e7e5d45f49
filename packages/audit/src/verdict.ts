// What reads a verdict without scanning anything: kept apart from the scanner (audit.ts, its rule table and decoders)
// so a command that only compares verdicts, or takes a kept report (decision 0429), does not load the rules.
import type { AuditOptions, Finding, Verdict } from "./types.js";
import { VERDICTS } from "./types.js";

export const DEFAULT_AUDIT_LIMITS: Readonly<Required<AuditOptions>> = {
  maxFileBytes: 1024 * 1024,
  maxFiles: 2000,
  maxBlobChars: 65_536,
  maxDecodeDepth: 2,
};

/** The heaviest level among the findings; `pass` when there are none. */
export function verdictOf(findings: readonly Finding[]): Verdict {
  let worst = 0;
  for (const f of findings) worst = Math.max(worst, VERDICTS.indexOf(f.level));
  return VERDICTS[worst] ?? "pass";
}

/** `verdict` is at or above `threshold` (pass < review < warn < malicious). */
export function atOrAbove(verdict: Verdict, threshold: Verdict): boolean {
  return VERDICTS.indexOf(verdict) >= VERDICTS.indexOf(threshold);
}
