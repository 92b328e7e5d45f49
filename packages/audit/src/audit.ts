import { parseSkillMd, readDeclaration } from "@skillport/core";
import type { AuditOptions, AuditReport, Finding, FindingLevel, SkillFileInput } from "./types.js";
import { DEFAULT_AUDIT_LIMITS, verdictOf } from "./verdict.js";
import { OTHER_RULES, PATTERN_RULES, type PatternRule } from "./rules.js";
import { decodeText, evidence, TextIndex } from "./text.js";
import { hiddenCharacters, hiddenMarkup } from "./hidden.js";
import { findBlobs } from "./decode.js";
import { binaryFindings } from "./binary.js";
import { allowedToolsFindings, toolList, triggerFindings } from "./frontmatter.js";
import { InventoryBuilder, inventoryOf } from "./inventory.js";
import { hostOf } from "./hosts.js";
import { WordFinder } from "./words.js";
import { INVENTORY_WORDS } from "./inventory.js";

const WORDS = new WordFinder([...PATTERN_RULES.flatMap((r) => r.hint), ...INVENTORY_WORDS]);

const INSTRUCTIONS = /\.(?:md|markdown|mdx|txt|rst)$/i;
const MINIFIABLE = /\.(?:js|mjs|cjs|py|sh|ps1)$/i;
const LOWER: Record<FindingLevel, FindingLevel> = { malicious: "warn", warn: "review", review: "review" };

/**
 * Audits one skill from its files (SKILL.md among them). Pure and synchronous: no file system, no network.
 * Every finding has a stable code; the verdict is the heaviest finding's level.
 */
export function auditSkill(files: readonly SkillFileInput[], options: AuditOptions = {}): AuditReport {
  const limits = { ...DEFAULT_AUDIT_LIMITS, ...options };
  const findings: Finding[] = [];
  const inventory = new InventoryBuilder();
  const skillMd = files.find((f) => /^skill\.md$/i.test(f.path));
  let name: string | undefined;
  let description = "";
  let allowedTools: string[] = [];
  let metadata: unknown;
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  sorted.forEach((file, i) => {
    if (i >= limits.maxFiles) {
      findings.push({
        ...OTHER_RULES.notScanned,
        file: file.path,
        line: 0,
        column: 0,
        evidence: `over --max-files ${limits.maxFiles}`,
      });
      return;
    }
    if (/(?:^|\/)(?:scripts|bin)\/|\.(?:sh|py|js|mjs|cjs|ps1|bat|cmd|rb|pl)$/i.test(file.path) && file !== skillMd)
      inventory.add("script", file.path, { file: file.path, line: 0, column: 0 });
    findings.push(...binaryFindings(file.path, file.bytes));
    if (file.bytes.byteLength > limits.maxFileBytes) {
      findings.push({
        ...OTHER_RULES.notScanned,
        file: file.path,
        line: 0,
        column: 0,
        evidence: `${file.bytes.byteLength} bytes, over --max-file-bytes ${limits.maxFileBytes}`,
      });
      return;
    }
    const text = decodeText(file.bytes);
    if (text === undefined) return;
    const index = new TextIndex(text);
    findings.push(...scanText(file.path, index, limits, 0));
    inventoryOf(file.path, index, inventory);
    if (MINIFIABLE.test(file.path) && minified(text))
      findings.push({ ...OTHER_RULES.minified, file: file.path, line: 0, column: 0, evidence: file.path });
    if (file === skillMd) {
      const parsed = parseSkillMd(text);
      const fm = parsed.frontmatter ?? {};
      name = typeof fm.name === "string" ? fm.name : undefined;
      description = typeof fm.description === "string" ? fm.description : "";
      allowedTools = toolList(fm["allowed-tools"]);
      metadata = fm.metadata;
      findings.push(...triggerFindings(description, index), ...allowedToolsFindings(allowedTools, parsed.body, index));
    }
  });
  ownVendorInstallers(findings, `${name ?? ""} ${description}`);
  findings.push(...undeclaredDestinations(metadata, inventory));
  const ordered = dedupe(findings).sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column || (a.code < b.code ? -1 : 1),
  );
  return {
    verdict: verdictOf(ordered),
    name,
    findings: ordered,
    inventory: inventory.items(),
    surface: { description, allowedTools, files: sorted.map((f) => f.path) },
  };
}

/**
 * A skill that declares its network (metadata skillport.*, decision 0360) but whose files name a host it does not
 * declare: worth a look (a run would be refused there). Skills without a declaration are not compared.
 */
function undeclaredDestinations(metadata: unknown, inventory: InventoryBuilder): Finding[] {
  const declaration = readDeclaration(metadata).declaration;
  if (declaration === undefined) return [];
  const hosts = new Set(declaration.network.map((d) => d.host));
  return inventory
    .items()
    .filter((item) => item.kind === "domain" && !hosts.has(item.value.toLowerCase()))
    .map((item) => ({ ...OTHER_RULES.undeclaredDestination, ...item.locations[0]!, evidence: item.value }));
}

/** Pattern rules, hidden content and encoded blobs over one text; blobs are decoded and re-scanned, bounded. */
function scanText(file: string, index: TextIndex, limits: typeof DEFAULT_AUDIT_LIMITS, depth: number): Finding[] {
  const findings: Finding[] = [];
  const kind = INSTRUCTIONS.test(file) || /^skill\.md$/i.test(file) ? "instructions" : "scripts";
  index.words = WORDS.find(index.lower);
  for (const rule of PATTERN_RULES) {
    if (rule.scope !== "text" && rule.scope !== kind) continue;
    if (!rule.hint.some((word) => index.words.has(word))) continue;
    findings.push(...applyRule(rule, file, index));
  }
  // Hidden markup matters where a model reads rendered instructions; templates (.html, .xsd) keep their comments.
  findings.push(...hiddenCharacters(file, index), ...(kind === "instructions" ? hiddenMarkup(file, index) : []));
  if (depth < limits.maxDecodeDepth) {
    for (const blob of findBlobs(index.text, limits.maxBlobChars)) {
      const inner = scanText(file, new TextIndex(blob.decoded), limits, depth + 1);
      const { line, column } = index.position(blob.offset);
      const worst = verdictOf(inner);
      if (
        worst === "malicious" ||
        inner.some((f) => /remote_recipe|download_and_execute|exfiltration|raw_ip|tunnel|reverse_shell/.test(f.code))
      ) {
        findings.push({
          ...OTHER_RULES.encodedPayload,
          file,
          line,
          column,
          evidence: evidence(`decodes to: ${blob.decoded.trim()}`),
        });
      } else if (worst !== "pass" || COMMAND.test(blob.decoded)) {
        findings.push({
          ...OTHER_RULES.encodedCommand,
          file,
          line,
          column,
          evidence: evidence(`decodes to: ${blob.decoded.trim()}`),
        });
      }
    }
  }
  return findings;
}

const COMMAND =
  /(?:^|[\s;|&])(?:curl|wget|bash|sh\s+-c|chmod|rm\s+-|python[0-9.]*\s+-c|powershell|iex|nc|ncat|eval|exec|sudo|base64\s+-d)\b/;

function applyRule(rule: PatternRule, file: string, index: TextIndex): Finding[] {
  const findings: Finding[] = [];
  const lines = new Set<number>();
  for (const pattern of rule.patterns) {
    pattern.lastIndex = 0;
    for (const m of index.text.matchAll(pattern)) {
      const { line, column } = index.position(m.index);
      if (lines.has(line)) continue;
      const refined = rule.refine ? rule.refine(m[0], index.lineAt(m.index)) : {};
      if (refined === null) continue;
      lines.add(line);
      let level = refined.level ?? rule.level;
      const caution = !rule.keepInCaution && index.underCaution(line);
      if (caution) level = LOWER[level];
      findings.push({
        code: refined.code ?? rule.code,
        level,
        file,
        line,
        column,
        message: rule.message,
        fix: rule.fix,
        evidence: evidence(m[0].trim()),
        ...(caution ? { downgraded: true as const } : {}),
      });
    }
  }
  return findings;
}

/**
 * A piped installer from the vendor the skill is about (a Linkerd skill running run.linkerd.io's installer) is an
 * ordinary install, kept at `review`: the host's main label (4+ letters) appears in the skill's name or description.
 */
function ownVendorInstallers(findings: Finding[], about: string): void {
  const words = about.toLowerCase();
  for (const f of findings) {
    if (f.code !== "suspicious.remote_recipe_execution" || f.level !== "warn") continue;
    const label = hostOf(f.evidence).split(".").slice(-2, -1)[0] ?? "";
    if (label.length >= 4 && !/^\d+$/.test(label) && words.includes(label)) f.level = "review";
  }
}

/** A script line over 1,000 characters with almost no spaces: minified or packed. */
function minified(text: string): boolean {
  for (const line of text.split("\n")) {
    if (line.length < 1000) continue;
    let spaces = 0;
    for (let i = 0; i < line.length; i++) if (line.charCodeAt(i) === 32) spaces++;
    if (spaces / line.length < 0.05) return true;
  }
  return false;
}

/** One finding per code and place (a blob and its own line may both match the same rule). */
function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.code}\u0000${f.file}\u0000${f.line}\u0000${f.column}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
