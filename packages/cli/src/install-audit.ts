import path from "node:path";
import { atOrAbove, diffAudits, VERDICTS, type AuditReport, type SecurityDiff, type Verdict } from "@skillport/audit";
import {
  canonicalSkillsDir,
  computedHash,
  readFolder,
  verifyAgainstLock,
  type AgentEnvironment,
  type AuditRecord,
  type LockEntry,
  type SidecarEntry,
  type SkillFileBytes,
  type SkillToInstall,
} from "@skillport/install";
import type { AuditVerdicts } from "./audit-verdicts.js";

/** The audit's scanner, loaded on first need (decision 0429). */
async function scanner(): Promise<(files: readonly SkillFileBytes[]) => AuditReport> {
  return (await import("./audit-scan.js")).auditSkill;
}
import { fetchLocked } from "./install-fetch.js";
import { CliError, colors, EXIT_PROBLEMS, type CliOutput } from "./io.js";
import { diagnosticLine, findingDiagnostic } from "./report.js";

/** The flags that give consent: `--yes` accepts `warn`, `--force` accepts `malicious` (decision 0303). */
export interface Consent {
  yes: boolean;
  force: boolean;
  /** `install --frozen`: no new consent is given; only what the sidecar records for these exact bytes counts. */
  frozen?: boolean;
}

/** What was known about a skill before this run: its sidecar record, and (update) how its risk surface changed. */
export interface PriorAudit {
  audit?: AuditRecord;
  diff?: SecurityDiff;
}

/** One skill's judgement: the record the sidecar keeps, whether the user is deciding now, and why it is refused. */
interface Judgement {
  record: AuditRecord;
  /** Consent was already on record for these bytes (or carried over an update that did not grow the surface). */
  covered: boolean;
  refusal?: string;
}

/**
 * The audit at install (issue 23, "Safety at install"; decisions 0303, 0350): every skill is audited before anything
 * is written. A `warn` verdict is installed only with `--yes` or `--force`, a `malicious` one only with `--force`,
 * unless the sidecar already records consent for exactly these bytes (by `computedHash`) at that verdict or above, or
 * (update) consent for the previous bytes and the security diff says the surface did not grow. Findings are shown when
 * the user is deciding now; a refusal refuses everything (nothing written, exit 1). The verdict, the consent and the
 * inventory are returned for the sidecar.
 */
export function installAuditGate(
  io: CliOutput,
  consent: Consent,
  options: {
    priors?: Readonly<Record<string, PriorAudit>>;
    verb?: string;
    quietReview?: boolean;
    /** Reports kept from earlier runs for the same bytes under the same rules (decision 0428). */
    verdicts?: AuditVerdicts;
  } = {},
): (skills: readonly SkillToInstall[]) => Promise<Record<string, AuditRecord>> {
  return async (skills) => {
    const c = colors(io);
    const refused: string[] = [];
    const records: Record<string, AuditRecord> = {};
    for (const [i, skill] of skills.entries()) {
      io.status(`auditing ${skill.name} (${i + 1}/${skills.length})…`);
      const report = options.verdicts
        ? await options.verdicts.report(skill.files, scanner)
        : (await scanner())(skill.files);
      io.status("");
      const judged = judgeSkill(skill.name, computedHash(skill.files), report, consent, options.priors?.[skill.name]);
      records[skill.name] = judged.record;
      // `review` is said when a user adds or updates; a restore (`install`) speaks only when consent is in question.
      const shown = options.quietReview === true ? atOrAbove(report.verdict, "warn") : report.verdict !== "pass";
      if (shown && !judged.covered) {
        io.stderr(`${c.yellow("audit")}  ${skill.name}: ${report.verdict}\n`);
        for (const f of report.findings)
          io.stderr(`  ${diagnosticLine(findingDiagnostic(skill.name, f, false), "", io, f.level)}\n`);
      }
      if (judged.refusal !== undefined) refused.push(judged.refusal);
    }
    await options.verdicts?.save();
    if (refused.length > 0)
      throw new CliError(
        `nothing was ${options.verb ?? "installed"}: the audit found risks in ${refused.join(", ")}`,
        EXIT_PROBLEMS,
      );
    if (skills.length > 0) io.status(`writing ${skills.length} skill${skills.length === 1 ? "" : "s"}…`);
    return records;
  };
}

/** The sidecar's audit records as priors: consent already given for exactly these bytes is not asked again. */
export function recordedAudits(sidecar: Readonly<Record<string, SidecarEntry>>): Record<string, PriorAudit> {
  const out: Record<string, PriorAudit> = {};
  for (const [name, entry] of Object.entries(sidecar))
    if (entry.audit !== undefined) out[name] = { audit: entry.audit };
  return out;
}

/** The consent rule of decision 0350, for one skill whose bytes hash to `hash`. */
function judgeSkill(
  name: string,
  hash: string,
  report: AuditReport,
  consent: Consent,
  prior: PriorAudit = {},
): Judgement {
  const record: AuditRecord = { verdict: report.verdict, inventory: inventoryLines(report) };
  if (!atOrAbove(report.verdict, "warn")) return { record, covered: false };
  const before = prior.audit?.accepted;
  const beforeVerdict = before && isVerdict(before.verdict) ? before.verdict : undefined;
  if (before && beforeVerdict && atOrAbove(beforeVerdict, report.verdict)) {
    if (before.computedHash === hash) return { record: { ...record, accepted: before }, covered: true };
    if (prior.diff && !prior.diff.grew)
      return {
        record: { ...record, accepted: { verdict: beforeVerdict, by: "update", computedHash: hash } },
        covered: true,
      };
  }
  if (consent.frozen) {
    return {
      record,
      covered: false,
      refusal: `${name} (${report.verdict}; skillport-lock.json records no consent for these bytes — accept it once with skillport install --yes)`,
    };
  }
  if (consent.force)
    return {
      record: { ...record, accepted: { verdict: report.verdict, by: "--force", computedHash: hash } },
      covered: false,
    };
  if (report.verdict === "warn" && consent.yes)
    return { record: { ...record, accepted: { verdict: "warn", by: "--yes", computedHash: hash } }, covered: false };
  const flag = report.verdict === "malicious" ? "--force installs it anyway" : "--yes accepts it";
  return { record, covered: false, refusal: `${name} (${report.verdict}; ${flag})` };
}

/** The inventory as the sidecar keeps it: `<kind> <value>`, sorted, without locations (they move with every edit). */
function inventoryLines(report: AuditReport): string[] {
  return [...new Set(report.inventory.map((i) => `${i.kind} ${i.value}`))].sort();
}

function isVerdict(value: string): value is Verdict {
  return (VERDICTS as readonly string[]).includes(value);
}

/**
 * The installed version's audit, to diff an update against: the canonical copy when it still matches the lock, else
 * the locked bytes fetched again (at the recorded commit) and verified; undefined when neither can be had.
 */
export async function installedReport(
  io: CliOutput,
  env: AgentEnvironment,
  name: string,
  entry: LockEntry,
  side: SidecarEntry | undefined,
): Promise<AuditReport | undefined> {
  let files: SkillFileBytes[] | undefined;
  try {
    files = readFolder(path.join(canonicalSkillsDir(env, false), name));
  } catch {
    files = undefined;
  }
  if (files === undefined || computedHash(files) !== entry.computedHash) {
    try {
      const locked = await fetchLocked(io, name, entry, side?.commit, side?.upstream);
      verifyAgainstLock(name, locked.files, entry, side);
      files = locked.files;
    } catch {
      return undefined;
    }
  }
  return (await scanner())(files);
}

/** How an update changes a skill's risk: the security diff against the installed version (none without one). */
export function riskOf(
  before: AuditReport | undefined,
  after: AuditReport,
): {
  verdict: { before: Verdict | null; after: Verdict };
  grew: boolean;
  changes: SecurityDiff["changes"];
  diff?: SecurityDiff;
} {
  if (before === undefined)
    return { verdict: { before: null, after: after.verdict }, grew: atOrAbove(after.verdict, "warn"), changes: [] };
  const diff = diffAudits(before, after);
  return { verdict: diff.verdict, grew: diff.grew, changes: diff.changes, diff };
}
