import { describe, expect, it } from "vitest";
import type { Diagnostic } from "./diagnostics.js";
import {
  AgentSkillsError,
  DiscoveryNotSupportedError,
  FileAccessNotSupportedError,
  InvalidPathError,
  LimitExceededError,
  ProviderUnavailableError,
  ResourceListingNotSupportedError,
  ResourceNotFoundError,
  SkillExistsError,
  SkillNotFoundError,
  SkillUnavailableError,
  SkillValidationError,
  type AgentSkillsErrorCode,
} from "./errors.js";

const diagnostic: Diagnostic = {
  code: "name-empty",
  severity: "error",
  message: "'name' must not be blank",
  line: 2,
  column: 1,
};

// Every error class the contract names, the stable code callers branch on, and its extra fields.
const cases: Array<[string, AgentSkillsError, AgentSkillsErrorCode, Array<abstract new (...args: never[]) => Error>]> =
  [
    ["AgentSkillsError", new AgentSkillsError("boom"), "SKILL_ERROR", []],
    ["SkillNotFoundError", new SkillNotFoundError("pdf"), "SKILL_NOT_FOUND", []],
    ["ResourceNotFoundError", new ResourceNotFoundError("pdf", "references/a.md"), "RESOURCE_NOT_FOUND", []],
    [
      "ResourceListingNotSupportedError",
      new ResourceListingNotSupportedError("http"),
      "RESOURCE_LISTING_NOT_SUPPORTED",
      [],
    ],
    ["DiscoveryNotSupportedError", new DiscoveryNotSupportedError("http"), "DISCOVERY_NOT_SUPPORTED", []],
    ["FileAccessNotSupportedError", new FileAccessNotSupportedError("http"), "FILE_ACCESS_NOT_SUPPORTED", []],
    ["SkillUnavailableError", new SkillUnavailableError("pdf is busy"), "SKILL_UNAVAILABLE", []],
    [
      "ProviderUnavailableError",
      new ProviderUnavailableError("http is down"),
      "PROVIDER_UNAVAILABLE",
      [SkillUnavailableError],
    ],
    ["SkillValidationError", new SkillValidationError("bad", [diagnostic]), "SKILL_VALIDATION", []],
    ["LimitExceededError", new LimitExceededError("maxFileBytes", "too big"), "LIMIT_EXCEEDED", []],
    ["InvalidPathError", new InvalidPathError("../x", "traversal"), "INVALID_PATH", []],
    ["SkillExistsError", new SkillExistsError(["pdf"]), "SKILL_EXISTS", []],
  ];

describe("error classes", () => {
  it.each(cases)("%s has its stable code and is an AgentSkillsError", (name, error, code, parents) => {
    expect(error).toBeInstanceOf(AgentSkillsError);
    expect(error).toBeInstanceOf(Error);
    for (const parent of parents) expect(error).toBeInstanceOf(parent);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(error.message).not.toBe("");
  });

  it("every code is distinct", () => {
    expect(new Set(cases.map(([, , code]) => code)).size).toBe(cases.length);
  });

  it("lookup errors carry what was looked up", () => {
    expect(new SkillNotFoundError("pdf").skillId).toBe("pdf");
    expect(new SkillNotFoundError("pdf").message).toBe('skill not found: "pdf"');
    const missing = new ResourceNotFoundError("pdf", "references/a.md");
    expect([missing.skillId, missing.path, missing.message]).toEqual([
      "pdf",
      "references/a.md",
      'resource not found in skill "pdf": "references/a.md"',
    ]);
    expect(new SkillExistsError(["a", "b"]).skillIds).toEqual(["a", "b"]);
    expect(new InvalidPathError("../x", "traversal").path).toBe("../x");
    expect(new LimitExceededError("maxDepth", "deep").limit).toBe("maxDepth");
  });

  it("SkillUnavailableError and ProviderUnavailableError carry retryAfter (seconds), undefined when unknown", () => {
    expect(new SkillUnavailableError("busy", { retryAfter: 30 }).retryAfter).toBe(30);
    expect(new SkillUnavailableError("busy").retryAfter).toBeUndefined();
    const outage = new ProviderUnavailableError("down", { retryAfter: 2.5 });
    expect([outage.retryAfter, outage.code]).toEqual([2.5, "PROVIDER_UNAVAILABLE"]);
    expect(new ProviderUnavailableError("down").retryAfter).toBeUndefined();
    // An outage is not "not found": callers that retry on unavailability must never see a lookup error class.
    expect(outage).not.toBeInstanceOf(SkillNotFoundError);
  });

  it("SkillValidationError carries its diagnostics", () => {
    expect(new SkillValidationError("bad", [diagnostic]).diagnostics).toEqual([diagnostic]);
  });

  it("keeps the cause", () => {
    const cause = new Error("EACCES");
    expect(new SkillNotFoundError("pdf", undefined, { cause }).cause).toBe(cause);
    expect(new SkillUnavailableError("busy", { cause }).cause).toBe(cause);
    expect(new AgentSkillsError("x").cause).toBeUndefined();
  });
});
