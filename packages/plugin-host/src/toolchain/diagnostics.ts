import { AgentSkillsError, type Diagnostic } from "@skillport/core";

/**
 * One finding about a plugin: core's Diagnostic, with `file` relative to the plugin directory (e.g. `index.ts`,
 * `dist/manifest.json`) when the finding has one. Codes are listed in docs/plugins.md.
 */
export type PluginDiagnostic = Diagnostic;

function diagnostic(
  code: string,
  severity: PluginDiagnostic["severity"],
  message: string,
  where: { file?: string; line?: number; column?: number } = {},
): PluginDiagnostic {
  return {
    code,
    severity,
    message,
    ...(where.file === undefined ? {} : { file: where.file }),
    line: where.line ?? 0,
    column: where.column ?? 0,
  };
}

export const errorOf = (code: string, message: string, where?: { file?: string; line?: number; column?: number }) =>
  diagnostic(code, "error", message, where);
export const warningOf = (code: string, message: string, where?: { file?: string; line?: number; column?: number }) =>
  diagnostic(code, "warning", message, where);

export function hasErrorDiagnostics(diagnostics: readonly PluginDiagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/** A build, check or pack that cannot go on; `diagnostics` says why and where. */
export class PluginBuildError extends AgentSkillsError<string> {
  readonly diagnostics: readonly PluginDiagnostic[];
  constructor(message: string, diagnostics: readonly PluginDiagnostic[] = [], code = "PLUGIN_BUILD_FAILED") {
    super(message, { code });
    this.diagnostics = diagnostics;
  }
}

/** `file:line:col` for people, or just the file. */
export function formatLocation(d: PluginDiagnostic): string {
  if (d.file === undefined) return "";
  return d.line > 0 ? `${d.file}:${d.line}:${d.column}` : d.file;
}
