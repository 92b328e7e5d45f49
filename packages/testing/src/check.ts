import { AgentSkillsError, type AgentSkillsErrorCode } from "@skillport/core";

/** A conformance expectation that did not hold. The message says what was expected and what happened. */
export class ConformanceFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConformanceFailure";
  }
}

export function fail(message: string): never {
  throw new ConformanceFailure(message);
}

export function check(condition: boolean, message: string): asserts condition {
  if (!condition) fail(message);
}

const SKILL_ERROR_CODES: ReadonlySet<string> = new Set<AgentSkillsErrorCode>([
  "SKILL_ERROR",
  "SKILL_NOT_FOUND",
  "RESOURCE_NOT_FOUND",
  "RESOURCE_LISTING_NOT_SUPPORTED",
  "DISCOVERY_NOT_SUPPORTED",
  "FILE_ACCESS_NOT_SUPPORTED",
  "SKILL_UNAVAILABLE",
  "PROVIDER_UNAVAILABLE",
  "SKILL_VALIDATION",
  "LIMIT_EXCEEDED",
  "INVALID_PATH",
  "SKILL_EXISTS",
  "ARCHIVE_REJECTED",
  "REPOSITORY_READ_ONLY",
]);

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Whether `error` is an instance of `cls`, or — when the provider was built against another copy of
 * @skillport/core — an AgentSkillsError-shaped error with the same stable `code`.
 */
function isErrorOf(error: unknown, cls: ErrorClass, code: AgentSkillsErrorCode | undefined): boolean {
  if (error instanceof cls) return true;
  return code !== undefined && error instanceof Error && (error as { code?: unknown }).code === code;
}

export interface Expected {
  cls: ErrorClass;
  /** The class's stable code; undefined for the base class (any AgentSkillsError code then matches). */
  code?: AgentSkillsErrorCode;
}

/** Runs `action` and requires it to reject with one of `expected`; returns the error. */
export async function expectError(
  what: string,
  action: () => Promise<unknown>,
  expected: readonly Expected[],
): Promise<unknown> {
  let value: unknown;
  try {
    value = await action();
  } catch (error) {
    if (
      expected.some((e) => isErrorOf(error, e.cls, e.code) || (e.cls === AgentSkillsError && isAgentSkillsError(error)))
    )
      return error;
    fail(`${what}: expected ${names(expected)}, got ${describeError(error)}`);
  }
  return fail(`${what}: expected ${names(expected)}, but it returned ${describeValue(value)}`);
}

function isAgentSkillsError(error: unknown): boolean {
  if (error instanceof AgentSkillsError) return true;
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  // Another copy of @skillport/core: its errors carry the same stable codes.
  return typeof code === "string" && SKILL_ERROR_CODES.has(code);
}

function names(expected: readonly Expected[]): string {
  return expected.map((e) => e.cls.name).join(" or ");
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `a thrown ${typeof error} (${describeValue(error)})`;
}

export function describeValue(value: unknown): string {
  if (value instanceof Uint8Array) return `${value.byteLength} bytes`;
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 80)}…` : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Structural equality for JSON-shaped values (frontmatter), key order ignored. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k) =>
      Object.prototype.hasOwnProperty.call(b, k) &&
      deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

export function isSortedStrings(values: readonly unknown[]): boolean {
  for (let i = 1; i < values.length; i++) {
    const prev = values[i - 1];
    const cur = values[i];
    if (typeof prev !== "string" || typeof cur !== "string" || prev > cur) return false;
  }
  return values.every((v) => typeof v === "string");
}
