import {
  AgentSkillsError,
  DiscoveryNotSupportedError,
  FileAccessNotSupportedError,
  InvalidPathError,
  ResourceListingNotSupportedError,
  ResourceNotFoundError,
  SkillNotFoundError,
  type ResourceKind,
  type SkillProvider,
} from "@skillport/core";
import type { Expected } from "../check.js";
import { CONFORMANCE_SKILL_ID } from "../fixture.js";

export const TRAVERSAL_IDENTIFIERS: readonly string[] = Object.freeze([
  "../etc/passwd",
  "..",
  "a/../../b",
  "/etc/passwd",
  "..\\..\\windows\\system32",
  "%2e%2e%2fetc%2fpasswd",
  "ok\0.md",
]);

export const KINDS: readonly ResourceKind[] = ["references", "scripts", "assets"];
export const GETTER = { references: "getReference", scripts: "getScript", assets: "getAsset" } as const;

export const SKILL_NOT_FOUND: Expected = { cls: SkillNotFoundError, code: "SKILL_NOT_FOUND" };
export const RESOURCE_NOT_FOUND: Expected = { cls: ResourceNotFoundError, code: "RESOURCE_NOT_FOUND" };
export const INVALID_PATH: Expected = { cls: InvalidPathError, code: "INVALID_PATH" };
export const LISTING_NOT_SUPPORTED: Expected = {
  cls: ResourceListingNotSupportedError,
  code: "RESOURCE_LISTING_NOT_SUPPORTED",
};
export const DISCOVERY_NOT_SUPPORTED: Expected = { cls: DiscoveryNotSupportedError, code: "DISCOVERY_NOT_SUPPORTED" };
export const FILE_ACCESS_NOT_SUPPORTED: Expected = {
  cls: FileAccessNotSupportedError,
  code: "FILE_ACCESS_NOT_SUPPORTED",
};
export const ANY_SKILL_ERROR: Expected = { cls: AgentSkillsError };

/** The fixture skill's id, short for case bodies. */
export const id = CONFORMANCE_SKILL_ID;
export const encoder = new TextEncoder();
export const show = (s: string) => JSON.stringify(s);

export function getKind(
  provider: SkillProvider,
  kind: ResourceKind,
  skillId: string,
  name: string,
): Promise<Uint8Array> {
  return provider[GETTER[kind]](skillId, name);
}

export function stringValues(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringValues(v, out);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) stringValues(v, out);
  return out;
}
