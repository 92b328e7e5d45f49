import { AgentSkillsError, validateSkillMd } from "@skillport/core";
import { auditSkill } from "@skillport/audit";
import {
  computeVersionId,
  DEFAULT_SKILL_FILE_PROFILE,
  DeterministicZip,
  readArchive,
  skillArchiveRoot,
  type ArchiveFile,
  type PackageLimits,
} from "@skillport/pack";
import { sha256Hex as sha256 } from "./blobs.js";
import { RegistryError } from "./errors.js";
import type { AuditSummary, FileEntry } from "./types.js";

/** The Agent Skills spec's name rule: lowercase letters, digits and single hyphens, 1–64 characters. */
export const SPEC_NAME = /^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** How much of SKILL.md's body the search index reads. */
const BODY_HEAD_CHARS = 2000;

/** An upload, checked: its one skill's files, SKILL.md's metadata, the audit, and the canonical `.skill` archive. */
export interface CheckedPackage {
  name: string;
  description: string;
  frontmatter: Record<string, unknown>;
  /** A version the author declared in the frontmatter (`version`, or `metadata.version`). */
  declaredVersion: string | undefined;
  bodyHead: string;
  files: FileEntry[];
  /** `sha256:<hex>` over the files (pack's content address). */
  contentDigest: string;
  audit: AuditSummary;
  /** A deterministic `.skill` zip (one folder named after the skill): what download serves. */
  archive: Uint8Array;
  /** Hex sha256 of `archive`. */
  blob: string;
  /** Hex sha256 of `flatArchive(files)`: the archive the well-known index lists. */
  flatDigest: string;
}

/**
 * Reads an uploaded zip, tar or `.skill` with pack's safe reader (the whole listing is checked before any content is
 * inflated: paths, links, sizes, ratios, duplicates), finds the one skill in it (SKILL.md at the top or in one
 * folder), validates SKILL.md, audits every file and re-packs the files as a deterministic `.skill`, so what is served
 * never carries the uploader's archive quirks. Nothing touches the disk.
 */
export async function checkPackage(bytes: Uint8Array, limits: Partial<PackageLimits>): Promise<CheckedPackage> {
  let files: ArchiveFile[];
  let root: { prefix: string; folder: string | undefined };
  try {
    files = (await readArchive(bytes, { limits, stripWrapper: false })).files;
    root = skillArchiveRoot(files);
  } catch (error) {
    if (error instanceof AgentSkillsError)
      throw new RegistryError("REGISTRY_INVALID_PACKAGE", `the upload was refused: ${error.message}`);
    throw error;
  }
  const { prefix, folder } = root;
  const inner = files.map((f) => ({ ...f, path: f.path.slice(prefix.length) }));
  const skillMd = inner.find((f) => f.path === "SKILL.md");
  const result = validateSkillMd(skillMd?.bytes ?? new Uint8Array(), {
    profile: DEFAULT_SKILL_FILE_PROFILE,
    dirName: folder,
    file: "SKILL.md",
    lint: false,
  });
  if (!result.valid) {
    const errors = result.diagnostics.filter((d) => d.severity === "error");
    throw new RegistryError(
      "REGISTRY_INVALID_PACKAGE",
      `SKILL.md failed validation: ${errors[0]?.message ?? "invalid"}`,
      { details: errors },
    );
  }
  const frontmatter = (result.parsed.frontmatter ?? {}) as Record<string, unknown>;
  const name = frontmatter.name;
  if (typeof name !== "string" || !SPEC_NAME.test(name)) {
    throw new RegistryError(
      "REGISTRY_INVALID_PACKAGE",
      `SKILL.md's name ${JSON.stringify(name ?? null)} is not a valid skill name (lowercase letters, digits and single hyphens, at most 64)`,
    );
  }
  const report = auditSkill(inner.map((f) => ({ path: f.path, bytes: f.bytes })));
  const entries: FileEntry[] = inner.map((f) => ({
    path: f.path,
    size: f.bytes.byteLength,
    sha256: sha256(f.bytes),
    mode: f.mode,
  }));
  const zip = new DeterministicZip();
  for (const f of inner) zip.add({ path: `${name}/${f.path}`, mode: f.mode, bytes: f.bytes });
  const archive = await zip.finish();
  const flat = await flatArchive(inner);
  const metadata = frontmatter.metadata;
  const declared =
    frontmatter.version ??
    (typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>).version : undefined);
  return {
    name,
    description: typeof frontmatter.description === "string" ? frontmatter.description : "",
    frontmatter,
    declaredVersion: typeof declared === "string" ? declared : undefined,
    bodyHead: result.parsed.body.slice(0, BODY_HEAD_CHARS),
    files: entries,
    contentDigest: computeVersionId(entries).digest,
    audit: { verdict: report.verdict, findings: report.findings },
    archive,
    blob: sha256(archive),
    flatDigest: sha256(flat),
  };
}

/**
 * A version's files as a zip with SKILL.md at its top (the discovery index's `archive`, and ClawHub's download),
 * stored rather than deflated: its bytes depend only on the paths, modes and contents — never on zlib — so it is built
 * again on each request and still matches the digest recorded at publish. `files` come in pack's path order.
 */
export function flatArchive(
  files: ReadonlyArray<{ path: string; mode: number; bytes: Uint8Array }>,
): Promise<Uint8Array> {
  const zip = new DeterministicZip({ compressionLevel: 0 });
  for (const f of files) zip.add({ path: f.path, mode: f.mode === 0o755 ? 0o755 : 0o644, bytes: f.bytes });
  return zip.finish();
}
