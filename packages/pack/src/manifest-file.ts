/** One packaged file as the manifest lists it. */
export interface ManifestFile {
  path: string;
  size: number;
  /** Lowercase hex sha256 of the bytes. */
  sha256: string;
  mode: 0o755 | 0o644;
}
