import { AgentSkillsError, type SkillProvider } from "@skillport/core";
import { auditSkill } from "./audit.js";
import { DEFAULT_AUDIT_LIMITS } from "./verdict.js";
import type { AuditOptions, AuditReport, SkillFileInput } from "./types.js";
import { OTHER_RULES } from "./rules.js";

/**
 * Audits the skill `id` as `provider` serves it (any source: a folder, a database, git, HTTP, npm). Files over the
 * size limit are not read (their size comes from the listing) and are reported, as are files the source refuses.
 */
export async function auditProviderSkill(
  provider: SkillProvider,
  id: string,
  options: AuditOptions = {},
): Promise<AuditReport> {
  return (await auditProviderSkillFiles(provider, id, options)).report;
}

/** `auditProviderSkill`, also returning the files it read (for `audit --dynamic`, which runs them). */
export async function auditProviderSkillFiles(
  provider: SkillProvider,
  id: string,
  options: AuditOptions = {},
): Promise<{ report: AuditReport; files: SkillFileInput[] }> {
  const { files, unread } = await readAuditFiles(provider, id, options);
  const report = auditSkill(files, options);
  if (unread.length === 0) return { report, files };
  const extra = unread.map((u) => ({ ...OTHER_RULES.notScanned, file: u.path, line: 0, column: 0, evidence: u.why }));
  const findings = [...report.findings, ...extra];
  return { report: { ...report, findings, verdict: report.verdict === "pass" ? "review" : report.verdict }, files };
}

/** The files of skill `id` within the audit's limits, and those left unread with why (for a second opinion too). */
export async function readAuditFiles(
  provider: SkillProvider,
  id: string,
  options: AuditOptions = {},
): Promise<{ files: SkillFileInput[]; unread: { path: string; why: string }[] }> {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_AUDIT_LIMITS.maxFileBytes;
  const maxFiles = options.maxFiles ?? DEFAULT_AUDIT_LIMITS.maxFiles;
  const listed = await provider.listFiles(id);
  const files: SkillFileInput[] = [];
  const unread: { path: string; why: string }[] = [];
  for (const [i, file] of listed.entries()) {
    if (i >= maxFiles) unread.push({ path: file.path, why: `over --max-files ${maxFiles}` });
    else if (file.size > maxFileBytes)
      unread.push({ path: file.path, why: `${file.size} bytes, over --max-file-bytes ${maxFileBytes}` });
    else {
      try {
        files.push({ path: file.path, bytes: await provider.readFile(id, file.path) });
      } catch (error) {
        if (!(error instanceof AgentSkillsError)) throw error;
        unread.push({ path: file.path, why: error.message });
      }
    }
  }
  return { files, unread };
}
