import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { AUDIT_CODE_DIGEST, DEFAULT_AUDIT_LIMITS, type AuditReport, type InventoryKind } from "@skillport/audit";
import { compareCodeUnits } from "@skillport/core/internal";
import { parseStateText, writeFileAtomic } from "@skillport/fs";
import type { SkillFileBytes } from "@skillport/install";
import { cacheFileName } from "./cache-dir.js";

const FORMAT = 1;
/** Reports kept: a few hundred skills' worth; the ones used by the last run are kept first. */
const MAX_ENTRIES = 2000;
const INVENTORY_KINDS = [
  "url",
  "domain",
  "package-runner",
  "mcp-server",
  "binary",
  "credential-path",
  "script",
] as const satisfies readonly InventoryKind[];

/** What produced a report besides the bytes: the audit's code (its digest) and its limits. */
export function auditKey(code = AUDIT_CODE_DIGEST): string {
  return `${code}:${JSON.stringify(DEFAULT_AUDIT_LIMITS)}`;
}

/**
 * The digest of exactly what the audit reads: every file's path, length and bytes, in path order. Not the lock's
 * `computedHash`, which runs paths and bytes together unseparated and skips `.git` and `node_modules`: two different
 * sets of files must never share a cached verdict.
 */
export function auditInputDigest(files: readonly SkillFileBytes[]): string {
  const hash = createHash("sha256");
  for (const f of [...files].sort((a, b) => compareCodeUnits(a.path, b.path))) {
    hash.update(`${f.path}\0${f.bytes.byteLength}\0`);
    hash.update(f.bytes);
  }
  return hash.digest("hex");
}

async function fileSchema() {
  const z = await import("zod/mini");
  const level = z.enum(["review", "warn", "malicious"]);
  const location = { file: z.string(), line: z.number(), column: z.number() };
  const finding = z.object({
    code: z.string(),
    level,
    ...location,
    message: z.string(),
    fix: z.string(),
    evidence: z.string(),
    downgraded: z.optional(z.literal(true)),
  });
  const report = z.object({
    verdict: z.enum(["pass", "review", "warn", "malicious"]),
    name: z.optional(z.string()),
    findings: z.array(finding),
    inventory: z.array(
      z.object({ kind: z.enum(INVENTORY_KINDS), value: z.string(), locations: z.array(z.object(location)) }),
    ),
    surface: z.object({ description: z.string(), allowedTools: z.array(z.string()), files: z.array(z.string()) }),
  });
  return z.object({ format: z.literal(FORMAT), key: z.string(), reports: z.record(z.string(), report) });
}

/**
 * Audit reports kept in the user's cache by (the digest of the audited files, the audit's code and limits), decision
 * 0428: the audit is pure, so the same bytes under the same rules give the same report, and a restore that meets
 * bytes it has audited before takes the report instead of scanning again. A changed rule, limit or byte is a
 * different key and is audited afresh. The file is read through a schema (decision 0321); a missing, unreadable or
 * foreign one starts empty and is replaced at `save()`, atomically. It costs only speed when it cannot be written.
 */
export class AuditVerdicts {
  private readonly used = new Map<string, AuditReport>();
  private added = false;

  private constructor(
    private readonly file: string,
    private readonly key: string,
    private readonly stored: Readonly<Record<string, AuditReport>>,
  ) {}

  static async open(cacheDir: string, key = auditKey()): Promise<AuditVerdicts> {
    const file = path.join(cacheDir, cacheFileName("audit-verdicts", [key]));
    const stored: Record<string, AuditReport> = {};
    try {
      const parsed = parseStateText(await readFile(file, "utf8"), await fileSchema());
      // The file name is a prefix of a digest of the key: the whole key is checked too.
      if ("value" in parsed && parsed.value.key === key)
        for (const [digest, r] of Object.entries(parsed.value.reports)) stored[digest] = { ...r, name: r.name };
    } catch {
      // Missing or unreadable: start empty; save() replaces it.
    }
    return new AuditVerdicts(file, key, stored);
  }

  /**
   * The report for these files: the kept one when the same bytes were audited under the same key, else the scanner's
   * (loaded only then, decision 0429).
   */
  async report(
    files: readonly SkillFileBytes[],
    scanner: () => Promise<(files: readonly SkillFileBytes[]) => AuditReport>,
  ): Promise<AuditReport> {
    const digest = auditInputDigest(files);
    const kept = this.used.get(digest) ?? this.stored[digest];
    if (kept !== undefined) {
      this.used.set(digest, kept);
      return kept;
    }
    const fresh = (await scanner())(files);
    this.used.set(digest, fresh);
    this.added = true;
    return fresh;
  }

  /** Writes the reports back when this run audited anything new. */
  async save(): Promise<void> {
    if (!this.added) return;
    const reports: Record<string, AuditReport> = Object.fromEntries(this.used);
    let count = this.used.size;
    for (const [digest, r] of Object.entries(this.stored)) {
      if (count >= MAX_ENTRIES) break;
      if (digest in reports) continue;
      reports[digest] = r;
      count++;
    }
    await writeFileAtomic(this.file, JSON.stringify({ format: FORMAT, key: this.key, reports }), {
      mode: 0o600,
    }).catch(() => undefined);
  }
}
