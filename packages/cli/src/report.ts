import type { Finding } from "@skillport/audit";
import type { Diagnostic } from "@skillport/core";
import { colors, type CliIO } from "./io.js";
import { safeJson } from "./terminal-text.js";

/** The validation result of one skill, as the validate command reports it. */
export interface SkillReport {
  /** SKILL.md path relative to the working directory. */
  path: string;
  name: string | undefined;
  valid: boolean;
  diagnostics: Diagnostic[];
  /** A folder looked at that is not a skill (no SKILL.md): reported, but not counted as a skill checked. */
  notSkill?: boolean;
}

function summarize(reports: readonly SkillReport[]) {
  let errors = 0;
  let warnings = 0;
  for (const report of reports) {
    for (const d of report.diagnostics) {
      if (d.severity === "error") errors++;
      else if (d.severity === "warning") warnings++;
    }
  }
  const notSkills = reports.filter((r) => r.notSkill === true).length;
  return { skills: reports.length - notSkills, errors, warnings, ...(notSkills > 0 && { notSkills }) };
}

/**
 * One finding, tsc/eslint style: `path:line:col  severity  code  message`. `label` names the severity in the
 * command's own words (audit's `malicious`/`warn`/`review`); the colour still follows the severity.
 */
export function diagnosticLine(d: Diagnostic, fallbackFile: string, io: CliIO, label?: string): string {
  const c = colors(io);
  const file = d.file ?? fallbackFile;
  const where = d.line > 0 ? `${file}:${d.line}:${d.column}` : file;
  const paint = d.severity === "error" ? c.red : d.severity === "warning" ? c.yellow : c.blue;
  return `${c.cyan(where)}  ${paint(label ?? d.severity)}  ${c.dim(d.code)}  ${d.message}`;
}

const FINDING_SEVERITY: Record<Finding["level"], Diagnostic["severity"]> = {
  malicious: "error",
  warn: "warning",
  review: "info",
};

/** An audit finding in the skill folder `folder` as a diagnostic (its evidence appended to the message, or not). */
export function findingDiagnostic(folder: string, f: Finding, withEvidence: boolean): Diagnostic {
  const message = withEvidence ? `${f.message}: ${f.evidence}` : f.message;
  return {
    code: f.code,
    severity: FINDING_SEVERITY[f.level],
    message,
    file: `${folder}/${f.file}`,
    line: f.line,
    column: f.column,
  };
}

/** tsc/eslint style: `path:line:col  severity  code  message`, then a summary line. */
export function formatText(reports: readonly SkillReport[], io: CliIO): string {
  const c = colors(io);
  const lines: string[] = [];
  for (const report of reports) for (const d of report.diagnostics) lines.push(diagnosticLine(d, report.path, io));
  const { skills, errors, warnings, notSkills } = summarize(reports);
  const verdict = errors > 0 ? c.red("✖") : c.green("✔");
  const others = notSkills === undefined ? "" : `; ${notSkills} folder${notSkills === 1 ? " is" : "s are"} not a skill`;
  lines.push(
    `${lines.length > 0 ? "\n" : ""}${verdict} ${skills} skill${skills === 1 ? "" : "s"} checked: ` +
      `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}${others}`,
  );
  return lines.join("\n") + "\n";
}

/**
 * The documented JSON shape: skills[{path, name, valid, diagnostics[{code, severity, message, line, column}]}], summary
 * {skills, errors, warnings, notSkills?}. Folders that are not skills stay in `skills` (nothing is dropped silently)
 * but count in `summary.notSkills`, not in `summary.skills`.
 */
export function formatJson(reports: readonly SkillReport[]): string {
  const value = {
    skills: reports.map((r) => ({
      path: r.path,
      name: r.name ?? null,
      valid: r.valid,
      diagnostics: r.diagnostics.map((d) => ({
        code: d.code,
        severity: d.severity,
        message: d.message,
        line: d.line,
        column: d.column,
        // Only when the finding is in another file than the SKILL.md (a referenced Markdown file).
        ...(d.file !== undefined && d.file !== r.path && { file: d.file }),
      })),
    })),
    summary: summarize(reports),
  };
  return safeJson(value, 2) + "\n";
}

/** SARIF 2.1.0, for code-scanning UIs. */
export function formatSarif(
  reports: readonly SkillReport[],
  version: string,
  docsPage = "docs/diagnostics.md",
): string {
  const ruleIds = [...new Set(reports.flatMap((r) => r.diagnostics.map((d) => d.code)))].sort();
  const level = (d: Diagnostic) => (d.severity === "error" ? "error" : d.severity === "warning" ? "warning" : "note");
  const sarif = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "skillport",
            version,
            rules: ruleIds.map((id) => ({
              id,
              shortDescription: { text: `skillport diagnostic ${id} (${docsPage})` },
            })),
          },
        },
        results: reports.flatMap((r) =>
          r.diagnostics.map((d) => ({
            ruleId: d.code,
            level: level(d),
            message: { text: d.message },
            locations: [
              {
                physicalLocation: {
                  artifactLocation: { uri: d.file ?? r.path },
                  ...(d.line > 0 ? { region: { startLine: d.line, startColumn: Math.max(1, d.column) } } : {}),
                },
              },
            ],
          })),
        ),
      },
    ],
  };
  return safeJson(sarif, 2) + "\n";
}
