import { RegistryError } from "./errors.js";

/** A parsed Semantic Versioning 2.0.0 version (build metadata is refused: it would make two equal versions differ). */
export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
}

const SEMVER =
  /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?$/;

export function parseSemVer(text: string): SemVer | undefined {
  if (text.length > 64) return undefined;
  const m = SEMVER.exec(text);
  if (!m) return undefined;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
    prerelease: m[4] === undefined ? [] : m[4].split("."),
  };
}

export function requireSemVer(text: string): SemVer {
  const parsed = parseSemVer(text);
  if (!parsed)
    throw new RegistryError(
      "REGISTRY_BAD_REQUEST",
      `version ${JSON.stringify(text.slice(0, 80))} is not a semantic version (MAJOR.MINOR.PATCH[-pre])`,
    );
  return parsed;
}

/** Semantic Versioning precedence: negative when a < b. */
function compareSemVer(a: SemVer, b: SemVer): number {
  if (a.major !== b.major) return a.major - b.major;
  if (a.minor !== b.minor) return a.minor - b.minor;
  if (a.patch !== b.patch) return a.patch - b.patch;
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return b.prerelease.length - a.prerelease.length;
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const x = a.prerelease[i] as string;
    const y = b.prerelease[i] as string;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return Number(x) - Number(y);
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.prerelease.length - b.prerelease.length;
}

export function compareVersions(a: string, b: string): number {
  return compareSemVer(requireSemVer(a), requireSemVer(b));
}

/** The next patch release after `v` (a pre-release `1.2.3-rc.1` becomes `1.2.3`). */
export function bumpPatch(v: string): string {
  const s = requireSemVer(v);
  return s.prerelease.length > 0 ? `${s.major}.${s.minor}.${s.patch}` : `${s.major}.${s.minor}.${s.patch + 1}`;
}
