/** Orders POSIX paths by their UTF-8 bytes, so every platform and locale sorts a package the same way. */
export function comparePaths(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** Mode a packaged file gets: 0755 when executable (or a shell script), 0644 otherwise. */
export function normalizedMode(path: string, hostMode: number): 0o755 | 0o644 {
  return (hostMode & 0o100) !== 0 || path.endsWith(".sh") ? 0o755 : 0o644;
}

/** Depth as a count of segments: `skills/a/SKILL.md` is 3. */
export function pathDepth(path: string): number {
  return path.split("/").length;
}
