import { Option, type Command } from "commander";
import { AgentSkillsError, type Diagnostic, type SkillProvider } from "@skillport/core";
import {
  applySecondOpinion,
  atOrAbove,
  auditProviderSkillFiles,
  DEFAULT_AUDIT_LIMITS,
  diffAudits,
  readAuditFiles,
  secondOpinion,
  verdictOf,
  VERDICTS,
  type AuditOptions,
  type AuditReport,
  type Finding,
  type OpinionModel,
  type SecurityDiff,
  type Verdict,
} from "@skillport/audit";
import { CliError, colors, EXIT_PROBLEMS, progressLine, warnOn, type CliOutput } from "../io.js";
import { diagnosticLine, findingDiagnostic, formatSarif, type SkillReport } from "../report.js";
import { parseSeconds, positiveInteger } from "../options.js";
import { openSource, sourceForms } from "../source-uri.js";
import { VERSION } from "../version.js";

interface AuditCommandOptions {
  format: "text" | "json" | "sarif";
  failOn: Exclude<Verdict, "pass">;
  inventory?: boolean;
  diff?: boolean;
  maxFileBytes: number;
  maxFiles: number;
  secondOpinion?: string;
  secondOpinionMaxChars: number;
  dynamic?: boolean;
  dynamicTimeout?: string;
  sandbox: "auto" | "bubblewrap" | "process";
}

/** `--dynamic`: what the detonation ran and saw, per skill (decision 0365). */
interface DynamicSummary {
  runs: {
    label: string;
    command: string;
    exit: number | null;
    timedOut: boolean;
    durationMs: number;
    destinations: number;
    denied: number;
    findings: number;
  }[];
  skipped: string[];
  durationMs: number;
  findings: number;
  warnings: string[];
}

/** One audited skill, named as the user can find it. */
interface AuditedSkill {
  /** `skills/foo` for a folder, `git+file:…:foo` for another source. */
  path: string;
  id: string;
  report: AuditReport;
  /** Set when a second opinion was asked (review verdicts with --second-opinion). */
  opinion?: { status: "ok" | "invalid" | "unavailable"; problem?: string };
  dynamic?: DynamicSummary;
}

/** Asks a model about one `review` skill; returns the report with its concerns added (never lowered). */
type Opinion = (
  provider: SkillProvider,
  id: string,
  report: AuditReport,
) => Promise<Pick<AuditedSkill, "report" | "opinion">>;

export function registerAudit(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("audit")
    .description(
      "audit what skills ask an agent to do: findings, a verdict per skill, an inventory; --diff compares two versions",
    )
    .argument("[sources...]", `skills to audit (${sourceForms()})`, ["."])
    .addOption(new Option("-f, --format <format>", "output format").choices(["text", "json", "sarif"]).default("text"))
    .addOption(
      new Option("--fail-on <verdict>", "exit 1 when a skill's verdict is at or above this")
        .choices(["review", "warn", "malicious"])
        .default("warn"),
    )
    .option(
      "--inventory",
      "text output: list what each skill fetches and runs (URLs, domains, package runners, MCP servers, programs)",
    )
    .option("--diff", "compare two sources (old new): how the risk surface grew; exit 1 when it did")
    .option("--max-file-bytes <n>", "largest file scanned (bytes)", positiveInteger, DEFAULT_AUDIT_LIMITS.maxFileBytes)
    .option("--max-files <n>", "most files scanned per skill", positiveInteger, DEFAULT_AUDIT_LIMITS.maxFiles)
    .option(
      "--second-opinion <model>",
      "ask a model on an OpenAI-compatible server (OPENAI_BASE_URL, key in OPENAI_API_KEY) about skills rated review; it can only add review flags",
    )
    .option(
      "--second-opinion-max-chars <n>",
      "characters of skill text sent to the model per skill",
      positiveInteger,
      48_000,
    )
    .option(
      "--dynamic",
      "also run each skill's entrypoint, scripts and instructed shell commands in the sandbox with canary credentials and a deny-and-log egress proxy; its findings join the verdict",
    )
    .option("--dynamic-timeout <seconds>", "time per skill for --dynamic, 1-600 (default 10)")
    .addOption(
      new Option("--sandbox <kind>", "sandbox backend for --dynamic")
        .choices(["auto", "bubblewrap", "process"])
        .default("bubblewrap"),
    )
    .addHelpText(
      "after",
      "\nVerdicts: pass < review < warn < malicious (docs/audit.md lists every rule).\nExamples:\n  skillport audit ./skills\n  skillport audit git+https://github.com/o/r.git --format sarif\n  skillport audit --diff git+file://$PWD#v1 git+file://$PWD#v2",
    )
    .action(async (sources: string[], options: AuditCommandOptions) => {
      const limits: AuditOptions = { maxFileBytes: options.maxFileBytes, maxFiles: options.maxFiles };
      if (options.diff) {
        if (sources.length !== 2)
          throw new CliError(`--diff takes exactly two sources (old new), got ${sources.length}`);
        const [before, after] = [
          await auditSources([sources[0] ?? ""], limits, io),
          await auditSources([sources[1] ?? ""], limits, io),
        ];
        const diffs = pairUp(before, after);
        io.stdout(
          options.format === "text"
            ? formatDiffText(diffs, io)
            : JSON.stringify({ skills: diffs.map(diffJson) }, null, 2) + "\n",
        );
        if (diffs.some((d) => (d.diff === undefined ? d.after !== undefined : d.diff.grew))) setExit(EXIT_PROBLEMS);
        return;
      }
      const opinion =
        options.secondOpinion !== undefined
          ? await opinionOf(options.secondOpinion, options.secondOpinionMaxChars, limits, io)
          : undefined;
      const dynamicTimeout = parseSeconds(options.dynamicTimeout, "--dynamic-timeout");
      const dynamic = options.dynamic
        ? { timeoutMs: (dynamicTimeout ?? 10) * 1000, sandbox: options.sandbox }
        : undefined;
      const audited = await auditSources(sources, limits, io, { opinion, dynamic });
      if (audited.length === 0) throw new CliError(`no skills found in ${sources.join(", ")}`);
      io.stdout(
        options.format === "json"
          ? JSON.stringify(auditJson(audited), null, 2) + "\n"
          : options.format === "sarif"
            ? formatSarif(audited.map(asSkillReport), VERSION, "docs/audit.md")
            : options.inventory
              ? formatInventory(audited)
              : formatAuditText(audited, io),
      );
      if (audited.some((a) => atOrAbove(a.report.verdict, options.failOn))) setExit(EXIT_PROBLEMS);
    });
}

/** Every skill of every source, opened the one way the CLI opens a root (a path or an address). */
async function auditSources(
  sources: readonly string[],
  limits: AuditOptions,
  io: CliOutput,
  extra: { opinion?: Opinion; dynamic?: DynamicOptions } = {},
): Promise<AuditedSkill[]> {
  const audited: AuditedSkill[] = [];
  for (const given of sources) {
    const source = await openSource(given, { cwd: io.cwd, warn: warnOn(io) });
    try {
      const ids = source.only !== undefined ? [source.only] : await source.provider.discover();
      const progress = progressLine(io, "auditing", ids.length);
      const base = source.label.startsWith("fs:") ? source.label.slice(3) : `${source.label}:`;
      for (const id of ids) {
        progress.tick();
        const path =
          source.only !== undefined && base !== `${source.label}:`
            ? base
            : base.endsWith(":")
              ? `${base}${id}`
              : `${base}/${id}`;
        const { report, files } = await auditProviderSkillFiles(source.provider, id, limits);
        const joined =
          extra.dynamic === undefined
            ? { path, id, report }
            : await withDynamic({ path, id, report }, files, extra.dynamic);
        audited.push(
          extra.opinion && joined.report.verdict === "review"
            ? { ...joined, ...(await extra.opinion(source.provider, id, joined.report)) }
            : joined,
        );
      }
      progress.done();
    } finally {
      await source.close();
    }
  }
  return audited;
}

/**
 * The second opinion (decision 0353): the agent package's OpenAI-compatible client, not streamed, temperature 0, one
 * retry. Its answer is schema-checked in `@skillport/audit`; a failed or invalid answer leaves the static report and
 * says so on stderr.
 */
async function opinionOf(
  modelName: string,
  maxInputChars: number,
  limits: AuditOptions,
  io: CliOutput,
): Promise<Opinion> {
  const { createOpenAIChatModel } = await import("@skillport/agent");
  const model: OpinionModel = createOpenAIChatModel({
    model: modelName,
    stream: false,
    temperature: 0,
    maxTokens: 1200,
    maxRetries: 1,
    timeoutMs: 60_000,
  });
  return async (provider, id, report) => {
    const { files } = await readAuditFiles(provider, id, limits);
    try {
      const answer = await secondOpinion(files, report, model, { maxInputChars });
      if (answer.status === "invalid")
        io.stderr(`skillport: the second opinion on ${id} was ignored: ${answer.problem ?? "invalid"}\n`);
      return {
        report: applySecondOpinion(report, answer),
        opinion:
          answer.problem === undefined ? { status: answer.status } : { status: answer.status, problem: answer.problem },
      };
    } catch (error) {
      if (!(error instanceof AgentSkillsError)) throw error;
      io.stderr(`skillport: no second opinion on ${id}: ${error.message}\n`);
      return { report, opinion: { status: "unavailable", problem: error.message } };
    }
  };
}

interface DynamicOptions {
  timeoutMs: number;
  sandbox: "auto" | "bubblewrap" | "process";
}

/** Runs the skill (runtime's detonateSkill) and joins its findings to the static ones. */
async function withDynamic(
  skill: AuditedSkill,
  files: readonly { path: string; bytes: Uint8Array }[],
  options: DynamicOptions,
): Promise<AuditedSkill> {
  // Loaded on demand: the sandbox and runtime are not part of a static audit.
  const { detonateSkill } = await import("@skillport/runtime");
  const d = await detonateSkill(files, { timeoutMs: options.timeoutMs, sandbox: options.sandbox });
  const findings = [...skill.report.findings, ...d.findings];
  return {
    ...skill,
    report: { ...skill.report, findings, verdict: verdictOf(findings) },
    dynamic: {
      runs: d.runs.map((r) => ({
        label: r.label,
        command: r.command,
        exit: r.record.exit.code,
        timedOut: r.record.exit.timedOut,
        durationMs: r.record.resources.durationMs,
        destinations: r.record.observed.destinations.length,
        denied: r.record.observed.denied,
        findings: r.record.findings.length,
      })),
      skipped: d.skipped,
      durationMs: d.durationMs,
      findings: d.findings.length,
      warnings: d.warnings,
    },
  };
}

function asDiagnostic(skill: AuditedSkill, f: Finding): Diagnostic {
  return findingDiagnostic(skill.path, f, true);
}

function asSkillReport(skill: AuditedSkill): SkillReport {
  return {
    path: `${skill.path}/SKILL.md`,
    name: skill.report.name,
    valid: !atOrAbove(skill.report.verdict, "warn"),
    diagnostics: skill.report.findings.map((f) => asDiagnostic(skill, f)),
  };
}

function formatAuditText(audited: readonly AuditedSkill[], io: CliOutput): string {
  const c = colors(io);
  const paint: Record<Verdict, (s: string) => string> = {
    pass: c.green,
    review: c.blue,
    warn: c.yellow,
    malicious: c.red,
  };
  const lines: string[] = [];
  for (const skill of audited) {
    for (const f of skill.report.findings) {
      lines.push(diagnosticLine(asDiagnostic(skill, f), skill.path, io, f.level));
      lines.push(`    fix: ${f.fix}${f.downgraded ? ' (lowered: under a "do not" heading)' : ""}`);
    }
    lines.push(`${paint[skill.report.verdict](skill.report.verdict.padEnd(9))} ${skill.path}`);
    if (skill.dynamic !== undefined) {
      const d = skill.dynamic;
      lines.push(
        `          dynamic: ${d.runs.length} run${d.runs.length === 1 ? "" : "s"} in ${(d.durationMs / 1000).toFixed(1)} s, ${d.findings} finding${d.findings === 1 ? "" : "s"}${d.skipped.length > 0 ? `, ${d.skipped.length} not run (time or count limit)` : ""}`,
      );
    }
  }
  const counts = VERDICTS.map((v) => `${audited.filter((a) => a.report.verdict === v).length} ${v}`).join(", ");
  lines.push(`\n${audited.length} skill${audited.length === 1 ? "" : "s"} audited: ${counts}`);
  return lines.join("\n") + "\n";
}

function formatInventory(audited: readonly AuditedSkill[]): string {
  const lines: string[] = [];
  for (const skill of audited) {
    lines.push(`${skill.path}  (${skill.report.verdict})`);
    if (skill.report.inventory.length === 0) lines.push("  nothing fetched or run");
    for (const item of skill.report.inventory) {
      const where = item.locations.slice(0, 3).map((l) => (l.line > 0 ? `${l.file}:${l.line}` : l.file));
      lines.push(
        `  ${item.kind.padEnd(15)} ${item.value}  (${where.join(", ")}${item.locations.length > 3 ? ", …" : ""})`,
      );
    }
  }
  return lines.join("\n") + "\n";
}

function auditJson(audited: readonly AuditedSkill[]) {
  return {
    skills: audited.map((a) => ({
      path: a.path,
      id: a.id,
      name: a.report.name ?? null,
      verdict: a.report.verdict,
      findings: a.report.findings,
      inventory: a.report.inventory,
      ...(a.opinion ? { secondOpinion: a.opinion } : {}),
      ...(a.dynamic !== undefined && { dynamic: a.dynamic }),
    })),
    summary: Object.fromEntries([
      ["skills", audited.length],
      ...VERDICTS.map((v) => [v, audited.filter((a) => a.report.verdict === v).length]),
    ]),
  };
}

interface PairedDiff {
  id: string;
  before?: AuditedSkill;
  after?: AuditedSkill;
  diff?: SecurityDiff;
}

/** Skills paired by id; two sources of one skill each are paired whatever their ids. */
function pairUp(before: readonly AuditedSkill[], after: readonly AuditedSkill[]): PairedDiff[] {
  if (before.length === 1 && after.length === 1 && before[0] && after[0]) {
    return [
      { id: after[0].id, before: before[0], after: after[0], diff: diffAudits(before[0].report, after[0].report) },
    ];
  }
  const old = new Map(before.map((s) => [s.id, s]));
  const paired: PairedDiff[] = after.map((s) => {
    const was = old.get(s.id);
    return was ? { id: s.id, before: was, after: s, diff: diffAudits(was.report, s.report) } : { id: s.id, after: s };
  });
  const now = new Set(after.map((s) => s.id));
  for (const s of before) if (!now.has(s.id)) paired.push({ id: s.id, before: s });
  return paired.sort((a, b) => (a.id < b.id ? -1 : 1));
}

function formatDiffText(diffs: readonly PairedDiff[], io: CliOutput): string {
  const c = colors(io);
  const lines: string[] = [];
  for (const d of diffs) {
    if (!d.before) {
      lines.push(
        `${c.yellow("new skill")} ${d.id} (${d.after?.report.verdict}): everything it fetches and runs is new`,
      );
      for (const item of d.after?.report.inventory ?? []) lines.push(`  - ${item.kind}: ${item.value}`);
    } else if (!d.after) lines.push(`skill ${d.id} removed`);
    else if (!d.diff?.grew)
      lines.push(
        `${c.green("no change to the risk surface")}: ${d.id} (${d.diff?.verdict.before} → ${d.diff?.verdict.after})`,
      );
    else {
      lines.push(`${c.yellow("risk surface grew")}: ${d.id} (${d.diff.verdict.before} → ${d.diff.verdict.after})`);
      for (const change of d.diff.changes) {
        const where = change.where
          ? ` (${change.where.file}${change.where.line > 0 ? `:${change.where.line}` : ""})`
          : "";
        lines.push(`  - ${change.statement}${where}`);
      }
    }
  }
  return lines.join("\n") + "\n";
}

function diffJson(d: PairedDiff) {
  return {
    id: d.id,
    before: d.before ? { path: d.before.path, verdict: d.before.report.verdict } : null,
    after: d.after ? { path: d.after.path, verdict: d.after.report.verdict } : null,
    grew: d.diff ? d.diff.grew : d.after !== undefined,
    changes: d.diff?.changes ?? [],
  };
}
