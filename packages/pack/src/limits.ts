import { LimitExceededError } from "@skillport/core";

/**
 * Every bound the packer and the unpacker enforce. Defaults follow FastGPT (50 MB upload, 200 MB uncompressed) and
 * the stricter community fork (1,000 entries, 20 MB per file, depth 12); see docs/packages.md.
 */
export interface PackageLimits {
  /** Largest archive accepted by unpack/inspect/import, and largest archive pack may produce, in bytes. */
  maxArchiveBytes: number;
  /** Largest sum of uncompressed file sizes, in bytes. */
  maxTotalBytes: number;
  /** Most files (archive entries, directories included, when unpacking). */
  maxFiles: number;
  /** Largest single file, in bytes. */
  maxFileBytes: number;
  /** Most path segments in one file path (`skills/a/SKILL.md` has 3). */
  maxDepth: number;
  /** Highest uncompressed/compressed ratio of one zip entry (zip bombs); entries under 64 KiB are exempt. */
  maxCompressionRatio: number;
}

export const DEFAULT_PACKAGE_LIMITS: Readonly<PackageLimits> = Object.freeze({
  maxArchiveBytes: 50 * 1024 * 1024,
  maxTotalBytes: 200 * 1024 * 1024,
  maxFiles: 1000,
  maxFileBytes: 20 * 1024 * 1024,
  maxDepth: 12,
  maxCompressionRatio: 200,
});

/** Entries smaller than this are never judged by ratio: tiny files of one repeated byte are normal. */
export const RATIO_EXEMPT_BYTES = 64 * 1024;

export function resolveLimits(limits: Partial<PackageLimits> | undefined): PackageLimits {
  const merged = { ...DEFAULT_PACKAGE_LIMITS, ...limits };
  for (const [key, value] of Object.entries(merged)) {
    if (typeof value !== "number" || !(value > 0)) {
      throw new LimitExceededError(key, `limit ${key} must be a positive number, got ${String(value)}`);
    }
  }
  return merged;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
  return `${bytes} B`;
}
