import { InvalidPathError, ResourceNotFoundError, SkillNotFoundError } from "./errors.js";
import type { ResourceKind } from "./skill-data.js";

/**
 * The one set of rules for identifiers that come from outside: skill ids and resource paths.
 * Every provider, the packer and the runtime use these, so "safe" means the same thing everywhere
 * (docs/safe-paths.md). Pure string rules; real-path confinement lives in `@skillport/fs` (`resolveConfined`).
 */

export interface SafePathLimits {
  /** Longest accepted path (or id), in UTF-16 code units. */
  maxLength: number;
  /** Most segments a resource path may have. */
  maxDepth: number;
}

export const DEFAULT_SAFE_PATH_LIMITS: Readonly<SafePathLimits> = Object.freeze({
  maxLength: 1024,
  maxDepth: 32,
});

/** Longest accepted skill id: a directory name on every common filesystem. */
export const MAX_SKILL_ID_LENGTH = 255;

// C0 controls, DEL and C1 controls: never part of a name a person typed.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// Windows silently drops trailing dots and spaces, so `a.` and `a` would name the same file there.
const WINDOWS_TRAILING = /[. ]$/;
const ASCII = /^[\u0000-\u007f]*$/;
// Decoding stops after this many rounds; a string still changing then is refused outright.
const MAX_DECODE_ROUNDS = 4;

/** Why `segment` is not a safe single path segment, or undefined when it is. */
function segmentProblem(segment: string): string | undefined {
  if (segment === "") return "empty segment";
  if (segment === "." || segment === "..") return `segment ${JSON.stringify(segment)} is not allowed`;
  if (segment.includes("\0")) return "contains NUL";
  if (CONTROL.test(segment)) return "contains a control character";
  if (segment.includes("\\")) return "contains a backslash";
  if (segment.includes(":")) return "contains ':'";
  return undefined;
}

/** Why `path` breaks the resource-path rules (literal form only), or undefined. */
function literalPathProblem(path: string, limits: SafePathLimits): string | undefined {
  if (path === "") return "empty path";
  if (path.length > limits.maxLength) return `longer than ${limits.maxLength} characters`;
  if (path.startsWith("/")) return "absolute path";
  if (path.startsWith("\\")) return "absolute or UNC path";
  if (/^[A-Za-z]:/.test(path)) return "drive-letter path";
  const segments = path.split("/");
  if (segments.length > limits.maxDepth) return `deeper than ${limits.maxDepth} segments`;
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Every form a string may take after layers that percent-decode or compatibility-normalise it:
 * the literal, each successive percent-decoding, and their NFKC forms (`．．／` becomes `../`). Callers ask
 * `isOnlyForm` first, so a string that has no other form never gets here.
 */
function decodedForms(value: string): { forms: string[]; unstable: boolean } {
  const forms = [value];
  let current = value;
  for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
    if (!current.includes("%")) break;
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      break; // not valid percent-encoding: nothing decodes it, so the literal is what counts
    }
    if (next === current) break;
    forms.push(next);
    current = next;
  }
  const unstable = current.includes("%") && safeDecode(current) !== current;
  for (const form of [...forms]) {
    const nfkc = form.normalize("NFKC");
    if (nfkc !== form) forms.push(nfkc);
  }
  return { forms, unstable };
}

/**
 * Nothing to decode, and ASCII is its own NFKC form: the common name (every folder of a listing) has no other form.
 * The checks below ask this first, so such a name costs no allocation: a listing checks thousands of names while
 * the young heap holds the whole directory, and every collection copies it.
 */
function isOnlyForm(value: string): boolean {
  return !value.includes("%") && ASCII.test(value);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function pathProblem(path: string, limits: SafePathLimits): string | undefined {
  const literal = literalPathProblem(path, limits);
  if (literal || isOnlyForm(path)) return literal;
  const { forms, unstable } = decodedForms(path);
  if (unstable) return "too many layers of percent-encoding";
  for (const form of forms.slice(1)) {
    const problem = literalPathProblem(form, {
      ...limits,
      maxLength: Number.POSITIVE_INFINITY,
      maxDepth: Number.POSITIVE_INFINITY,
    });
    if (problem) return `encoded form is unsafe (${problem})`;
  }
  return undefined;
}

function skillIdLiteralProblem(id: string): string | undefined {
  if (id.includes("/")) return "contains '/'";
  const problem = segmentProblem(id);
  if (problem) return problem === "empty segment" ? "empty id" : problem;
  if (id.startsWith(".")) return "starts with '.'";
  if (WINDOWS_TRAILING.test(id)) return "ends with '.' or a space";
  if (id.trim() !== id) return "starts with whitespace";
  return undefined;
}

function skillIdProblem(id: unknown): string | undefined {
  if (typeof id !== "string") return "not a string";
  if (id.length > MAX_SKILL_ID_LENGTH) return `longer than ${MAX_SKILL_ID_LENGTH} characters`;
  const literal = skillIdLiteralProblem(id);
  if (literal || isOnlyForm(id)) return literal;
  const { forms, unstable } = decodedForms(id);
  if (unstable) return "too many layers of percent-encoding";
  for (const form of forms.slice(1)) {
    const problem = skillIdLiteralProblem(form);
    if (problem) return `encoded form is unsafe (${problem})`;
  }
  return undefined;
}

/**
 * Throws InvalidPathError unless `id` can safely name a skill directory: one non-empty segment, not starting with
 * `.`, without `/ \ :`, NUL or control characters, not ending in `.` or a space, at most 255 characters, and still
 * all of that after percent-decoding and NFKC normalisation.
 */
export function assertSafeSkillId(id: string): void {
  const problem = skillIdProblem(id);
  if (problem) throw new InvalidPathError(String(id), `not a safe skill id: ${problem}`);
}

export function isSafeSkillId(id: string): boolean {
  return skillIdProblem(id) === undefined;
}

/**
 * Checks a resource path from outside and returns it as the canonical POSIX path relative to a skill directory.
 * Rules are strict rather than forgiving: instead of rewriting `./a` or `a//b`, they are refused, so an accepted
 * path is already canonical (the function is the identity on everything it accepts).
 */
export function normalizeResourcePath(path: string, limits: Partial<SafePathLimits> = {}): string {
  if (typeof path !== "string") throw new InvalidPathError(String(path), "not a string");
  const problem = pathProblem(path, { ...DEFAULT_SAFE_PATH_LIMITS, ...limits });
  if (problem) throw new InvalidPathError(path, problem);
  return path;
}

export function isSafeResourcePath(path: string, limits: Partial<SafePathLimits> = {}): boolean {
  return typeof path === "string" && pathProblem(path, { ...DEFAULT_SAFE_PATH_LIMITS, ...limits }) === undefined;
}

/**
 * Provider lookups never surface InvalidPathError: an unsafe id simply names no skill. This returns the id or throws
 * SkillNotFoundError whose `cause` is the InvalidPathError (so callers that care can still tell).
 */
export function requireSafeSkillId(id: string): string {
  try {
    assertSafeSkillId(id);
    return id;
  } catch (error) {
    throw new SkillNotFoundError(String(id), undefined, { cause: error });
  }
}

/** Like normalizeResourcePath, but an unsafe path names no resource: ResourceNotFoundError with the cause attached. */
export function requireSafeResourcePath(skillId: string, path: string, limits: Partial<SafePathLimits> = {}): string {
  try {
    return normalizeResourcePath(path, limits);
  } catch (error) {
    throw new ResourceNotFoundError(skillId, String(path), undefined, { cause: error });
  }
}

/**
 * The skill-relative path a kind getter (`getReference` and friends) reads: `<kind>/<name>`, where `name` must be a
 * single safe segment (resources are one level deep, and a `/` in a name is refused outright).
 * Throws ResourceNotFoundError (cause: InvalidPathError) otherwise.
 */
export function resourceKindPath(skillId: string, kind: ResourceKind, name: string): string {
  const problem =
    typeof name !== "string"
      ? "not a string"
      : name.includes("/")
        ? "contains '/'"
        : pathProblem(name, DEFAULT_SAFE_PATH_LIMITS);
  if (problem) {
    throw new ResourceNotFoundError(skillId, `${kind}/${String(name)}`, undefined, {
      cause: new InvalidPathError(String(name), `not a safe ${kind} name: ${problem}`),
    });
  }
  return `${kind}/${name}`;
}
