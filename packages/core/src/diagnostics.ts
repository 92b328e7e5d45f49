export type Severity = "error" | "warning" | "info";

/**
 * One finding about a skill. Codes are stable (documented in docs/diagnostics.md); messages are for people.
 * `line` and `column` are 1-based and point into `file` (usually a SKILL.md); 0 means "the file as a whole".
 */
export interface Diagnostic {
  code: string;
  severity: Severity;
  message: string;
  file?: string;
  line: number;
  column: number;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}
