import { stat } from "node:fs/promises";
import type { Diagnostic } from "@skillport/core";
import { readArchive, type ArchiveFormat, type ReadArchiveOptions } from "./archive/read.js";
import { checkLayout, type LayoutOptions } from "./layout.js";
import { describeDirectory, type CollectPackageOptions, type ManifestFile, type PackageManifest } from "./pack.js";
import { computeVersionId, sha256Hex } from "./version.js";

export interface InspectOptions extends ReadArchiveOptions, LayoutOptions, Pick<CollectPackageOptions, "includeSecrets" | "followLinks"> {}

export interface PackageInspection extends PackageManifest {
  /** `directory` for a workspace, otherwise the archive format. */
  source: "directory" | ArchiveFormat;
  /** Layout and SKILL.md findings. */
  diagnostics: Diagnostic[];
  valid: boolean;
}

/**
 * Describes a package without writing anything: a workspace directory (what `pack` would produce) or an archive
 * (checked with every unpack rule, read in memory). `excluded` lists exclusions, or for archives the OS junk dropped.
 */
export async function inspectPackage(input: string | Uint8Array, options: InspectOptions = {}): Promise<PackageInspection> {
  if (typeof input === "string" && (await stat(input)).isDirectory()) {
    const { manifest, layout } = await describeDirectory(input, options);
    return { source: "directory", ...manifest, diagnostics: layout.diagnostics, valid: layout.valid };
  }
  const archive = await readArchive(input, options);
  const contents = new Map(archive.files.map((f) => [f.path, f.bytes]));
  const files = archive.files.map((f): ManifestFile => ({ path: f.path, size: f.bytes.byteLength, sha256: sha256Hex(f.bytes), mode: f.mode }));
  const layout = await checkLayout(files.map((f) => f.path), async (p) => contents.get(p) ?? new Uint8Array(), options);
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
