import { createHash } from "node:crypto";
import { comparePaths } from "./paths.js";

/** One file as the version id sees it: its path, normalised mode and content hash. */
export interface CanonicalFile {
  /** POSIX path relative to the package root. */
  path: string;
  /** 0o755 or 0o644 (any other value is normalised by its owner-execute bit). */
  mode: number;
  /** Lowercase hex sha256 of the file's bytes. */
  sha256: string;
}

export interface VersionInfo {
  /** First 24 hex chars of the digest: the shape FastGPT's runtime recognises (`^[a-f0-9]{24}$`). */
  versionId: string;
  /** `sha256:<64 hex>` of the canonical text. */
  digest: string;
}

/** First line of the canonical text; bumping it is the only way the definition may ever change. */
export const CANONICAL_HEADER = "skillport-package-v1\n";

/**
 * The exact text hashed for a version id (docs/decisions/0041-content-addressed-version-id.md):
 * the header line, then one line per file sorted by the UTF-8 bytes of its path:
 * `<path> NUL <mode as 3 octal digits> NUL <sha256 hex> LF`.
 */
export function canonicalText(files: readonly CanonicalFile[]): string {
  const sorted = [...files].sort((a, b) => comparePaths(a.path, b.path));
  let text = CANONICAL_HEADER;
  for (const file of sorted) {
    const mode = (file.mode & 0o100) !== 0 ? "755" : "644";
    text += `${file.path}\u0000${mode}\u0000${file.sha256.toLowerCase()}\n`;
  }
  return text;
}

/** Content address of a package: same files, modes and bytes give the same id on every machine. */
export function computeVersionId(files: readonly CanonicalFile[]): VersionInfo {
  const hex = createHash("sha256").update(canonicalText(files), "utf8").digest("hex");
  return { versionId: hex.slice(0, 24), digest: `sha256:${hex}` };
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** True for a string shaped like a version id. */
export function isVersionId(value: string): boolean {
  return /^[a-f0-9]{24}$/.test(value);
}
