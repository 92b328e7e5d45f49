import path from "node:path";
import { LimitExceededError, SkillValidationError, type Diagnostic } from "@skillport/core";
import { writeFileAtomic } from "@skillport/fs";
import { checkLayout, type LayoutOptions, type LayoutReport, type PackageSkill } from "./layout.js";
import { formatBytes, resolveLimits, type PackageLimits } from "./limits.js";
import { readCollected } from "./read-files.js";
import { canonicalSkillFiles, collectFiles, type ExcludedEntry } from "./walk.js";
import { computeVersionId } from "./version.js";
import { DeterministicZip } from "./zip-writer.js";
import type { ManifestFile } from "./manifest-file.js";

// ManifestFile lives in its own module so read-files.ts can use it without importing this one (no cycle).
export type { ManifestFile } from "./manifest-file.js";

/** What a package holds: the same shape whether it came from a directory or an archive. */
export interface PackageManifest {
  versionId: string;
  digest: string;
  files: ManifestFile[];
  totalBytes: number;
  skills: PackageSkill[];
  excluded: ExcludedEntry[];
}

export interface CollectPackageOptions extends LayoutOptions {
  limits?: Partial<PackageLimits>;
  /** Ship files that look like credentials. Off by default; callers should warn loudly when on. */
  includeSecrets?: boolean;
  /** Follow symbolic links that stay inside the package; otherwise any link is an error naming it. */
  followLinks?: boolean;
  /** An absolute path to leave out (an output archive inside the package directory). */
  skipAbsolute?: string;
}

export interface PackOptions extends CollectPackageOptions {
  /** zlib level 1–9, 0 stores. Default 6. */
  compressionLevel?: number;
  /** Refuse to pack when the layout check finds errors (throws SkillValidationError). Default true. */
  requireValid?: boolean;
}

export interface PackResult {
  /** The deterministic ZIP. */
  archive: Uint8Array;
  versionId: string;
  digest: string;
  manifest: PackageManifest;
  /** Layout and SKILL.md findings (warnings, and errors when `requireValid` is false). */
  diagnostics: Diagnostic[];
}

interface LoadedPackage {
  manifest: PackageManifest;
  layout: LayoutReport;
}

/**
 * Collects, reads and checks a package; every file read is also handed to `onFile` (the zip writer, when packing) as a
 * view that is valid only during the call.
 */
async function loadPackage(
  dir: string,
  options: CollectPackageOptions,
  onFile: (file: ManifestFile, bytes: Uint8Array) => void = () => {},
): Promise<LoadedPackage> {
  const limits = resolveLimits(options.limits);
  const collected = await collectFiles(dir, {
    limits,
    includeSecrets: options.includeSecrets,
    followLinks: options.followLinks,
    skipAbsolute: options.skipAbsolute,
    skillFolders: "package",
  });
  // `skills/<x>/skill.md` is the skill file when SKILL.md is absent (fs's one file-name rule); it is packed under its
  // canonical name, so every runtime finds it (decision 0124).
  canonicalSkillFiles(collected.files, "package");
  // Only SKILL.md files are kept for the layout check; everything else streams through.
  const skillMds = new Map<string, Uint8Array>();
  const files = await readCollected(
    collected,
    { followLinks: options.followLinks, maxFileBytes: limits.maxFileBytes, transient: true },
    (file, bytes) => {
      if (file.path.endsWith("/SKILL.md")) skillMds.set(file.path, bytes.slice());
      onFile(file, bytes);
    },
  );
  const layout = await checkLayout(
    files.map((f) => f.path),
    async (p) => skillMds.get(p) ?? new Uint8Array(),
    { profile: options.profile },
  );
  const { versionId, digest } = computeVersionId(files);
  const totalBytes = files.reduce((sum, f) => sum + f.size, 0);
  return {
    manifest: { versionId, digest, files, totalBytes, skills: layout.skills, excluded: collected.excluded },
    layout,
  };
}

/** The manifest and layout report of a package directory, without building an archive. */
export async function describeDirectory(
  dir: string,
  options: CollectPackageOptions = {},
): Promise<{ manifest: PackageManifest; layout: LayoutReport }> {
  return await loadPackage(dir, options);
}

/** Checks a package workspace: layout, SKILL.md validity and name uniqueness, with every problem listed. */
export async function checkPackageLayout(dir: string, options: CollectPackageOptions = {}): Promise<LayoutReport> {
  return (await loadPackage(dir, options)).layout;
}

/**
 * Packs a package workspace into a deterministic ZIP with a content-addressed version id.
 * Exclusions, secret filtering, link rules and limits apply; see docs/packages.md.
 */
export async function packDirectory(dir: string, options: PackOptions = {}): Promise<PackResult> {
  const limits = resolveLimits(options.limits);
  // Entries are added while files are read, so compression overlaps reading; an invalid package discards the zip.
  const zip = new DeterministicZip({ compressionLevel: options.compressionLevel });
  const { manifest, layout } = await loadPackage(dir, { ...options, limits }, (file, bytes) =>
    zip.add({ path: file.path, mode: file.mode, bytes }),
  );
  if ((options.requireValid ?? true) && !layout.valid) {
    const errors = layout.diagnostics.filter((d) => d.severity === "error").length;
    throw new SkillValidationError(
      `package layout check failed with ${errors} error${errors === 1 ? "" : "s"}`,
      layout.diagnostics,
    );
  }
  const bytes = await zip.finish();
  if (bytes.byteLength > limits.maxArchiveBytes) {
    throw new LimitExceededError(
      "maxArchiveBytes",
      `the archive would be ${formatBytes(bytes.byteLength)}, over the ${formatBytes(limits.maxArchiveBytes)} limit`,
    );
  }
  return {
    archive: bytes,
    versionId: manifest.versionId,
    digest: manifest.digest,
    manifest,
    diagnostics: layout.diagnostics,
  };
}

/** packDirectory, then an atomic write of the archive to `outFile` (left out of the package if inside it). */
export async function packDirectoryToFile(
  dir: string,
  outFile: string,
  options: PackOptions = {},
): Promise<PackResult> {
  const result = await packDirectory(dir, { ...options, skipAbsolute: path.resolve(outFile) });
  await writeFileAtomic(outFile, result.archive);
  return result;
}
