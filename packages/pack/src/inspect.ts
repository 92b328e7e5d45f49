import { stat } from "node:fs/promises";
import type { Diagnostic } from "@skillport/core";
import { listArchive, type ArchiveFormat, type ReadArchiveOptions } from "./archive/read.js";
import { checkLayout, type LayoutOptions } from "./layout.js";
import { describeDirectory, type CollectPackageOptions, type ManifestFile, type PackageManifest } from "./pack.js";
import { computeVersionId, sha256Hex } from "./version.js";

export interface InspectOptions
  extends ReadArchiveOptions, LayoutOptions, Pick<CollectPackageOptions, "includeSecrets" | "followLinks"> {}

export interface PackageInspection extends PackageManifest {
  /** `directory` for a workspace, otherwise the archive format. */
  source: "directory" | ArchiveFormat;
  /** Layout and SKILL.md findings. */
  diagnostics: Diagnostic[];
  valid: boolean;
}

/**
 * Describes a package without writing anything: a workspace directory (what `pack` would produce) or an archive
 * (checked with every unpack rule, read one file at a time). `excluded` lists exclusions, or for archives the OS junk
 * dropped.
 */
export async function inspectPackage(
  input: string | Uint8Array,
  options: InspectOptions = {},
): Promise<PackageInspection> {
  if (typeof input === "string" && (await stat(input)).isDirectory()) {
    const { manifest, layout } = await describeDirectory(input, options);
    return { source: "directory", ...manifest, diagnostics: layout.diagnostics, valid: layout.valid };
  }
  // One file in memory at a time, as unpack does (decision 0222); only SKILL.md files are kept for the layout check.
  const archive = await listArchive(input, options);
  const skillMds = new Map<string, Uint8Array>();
  const files = archive.files.map((f): ManifestFile => {
    const bytes = f.read();
    if (f.path.endsWith("/SKILL.md")) skillMds.set(f.path, bytes);
    return { path: f.path, size: bytes.byteLength, sha256: sha256Hex(bytes), mode: f.mode };
  });
  const layout = await checkLayout(
    files.map((f) => f.path),
    async (p) => skillMds.get(p) ?? new Uint8Array(),
    options,
  );
  const { versionId, digest } = computeVersionId(files);
  return {
    source: archive.format,
    versionId,
    digest,
    files,
    totalBytes: files.reduce((sum, f) => sum + f.size, 0),
    skills: layout.skills,
    excluded: archive.dropped,
    diagnostics: layout.diagnostics,
    valid: layout.valid,
  };
}
