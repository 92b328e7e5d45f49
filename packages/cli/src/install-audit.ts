import { auditSkill } from "@skillport/audit";
import type { SkillToInstall } from "@skillport/install";
import { CliError, colors, EXIT_PROBLEMS, type CliOutput } from "./io.js";
import { diagnosticLine, findingDiagnostic } from "./report.js";

/**
 * The audit at install (issue 23, "Safety at install"; decision 0303): every skill is audited before anything is
 * written. Findings of a skill that does not pass are shown on stderr; a `warn` verdict is installed only with
 * `--yes` or `--force`, a `malicious` one only with `--force`; otherwise nothing is written and the exit is 1.
 */
export function installAuditGate(io: CliOutput, accept: { yes: boolean; force: boolean }): (skills: readonly SkillToInstall[]) => Promise<void> {
  return async (skills) => {
    const c = colors(io);
    const refused: string[] = [];
    for (const skill of skills) {
      const report = auditSkill(skill.files);
      if (report.verdict === "pass") continue;
      io.stderr(`${c.yellow("audit")}  ${skill.name}: ${report.verdict}\n`);
      for (const f of report.findings) io.stderr(`  ${diagnosticLine(findingDiagnostic(skill.name, f, false), "", io, f.level)}\n`);
      if (report.verdict === "malicious" && !accept.force) refused.push(`${skill.name} (malicious; --force installs it anyway)`);
      else if (report.verdict === "warn" && !accept.yes && !accept.force) refused.push(`${skill.name} (warn; --yes accepts it)`);
    }
    if (refused.length > 0) throw new CliError(`nothing was installed: the audit found risks in ${refused.join(", ")}`, EXIT_PROBLEMS);
  };
}
