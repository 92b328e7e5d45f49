import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { NOT_SECRET_FILES, SECRET_FILE_CASES, SERVICE_ACCOUNT_KEY } from "./__fixtures__/secret-files.js";
import { SECRET_FILE_PATTERNS, secretFileContent, secretFilePattern } from "./secret-files.js";

describe("secretFilePattern: the one credential and VCS list", () => {
  it("has a case in the shared table for every pattern", () => {
    expect([...new Set(SECRET_FILE_CASES.map(([, pattern]) => pattern))].sort()).toEqual(
      [...SECRET_FILE_PATTERNS].sort(),
    );
  });

  it("docs/packages.md's table names every pattern", () => {
    const doc = readFileSync(new URL("../../../docs/packages.md", import.meta.url), "utf8");
    for (const pattern of SECRET_FILE_PATTERNS) expect(doc, pattern).toContain(`\`${pattern}\``);
  });

  it.each(SECRET_FILE_CASES)("%s is a secret (%s)", (file, pattern) => {
    expect(secretFilePattern(file)).toBe(pattern);
    // Nested anywhere in a package, and in any letter case.
    expect(secretFilePattern(`skills/a/${file}`)).toBe(pattern);
    expect(secretFilePattern(`skills/a/${file.toUpperCase()}`)).toBe(pattern);
  });

  it.each(NOT_SECRET_FILES)("%s is an ordinary file", (file) => {
    expect(secretFilePattern(file)).toBeUndefined();
    expect(secretFilePattern(`skills/a/${file}`)).toBeUndefined();
  });

  it("judges folders: `name/` patterns match the folder itself only as a folder", () => {
    expect(secretFilePattern(".kube", true)).toBe(".kube/");
    expect(secretFilePattern(".kube", false)).toBeUndefined();
    expect(secretFilePattern(".config", true)).toBeUndefined();
    expect(secretFilePattern(".config/gh", true)).toBe(".config/gh/");
    expect(secretFilePattern(".git", false)).toBe(".git"); // a worktree's `.git` file names its repository
  });

  it("a template inside a secret folder is still a secret", () => {
    expect(secretFilePattern(".env.example")).toBeUndefined();
    expect(secretFilePattern(".ssh/config.example")).toBe(".ssh/");
    expect(secretFilePattern(".git/hooks/pre-commit.sample")).toBe(".git");
  });

  it("anything below a secret segment is a secret, whatever follows (property)", () => {
    const segment = fc.stringMatching(/^[a-z0-9_.-]{1,8}$/).filter((s) => s !== "." && s !== "..");
    const secret = fc.constantFrom(".env", ".git", ".ssh", ".npmrc", "secrets.yaml", ".kube", "id_rsa");
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 3 }),
        secret,
        fc.array(segment, { minLength: 1, maxLength: 3 }),
        (before, name, after) => {
          expect(secretFilePattern([...before, name, ...after].join("/"))).toBeDefined();
        },
      ),
    );
  });
});

describe("secretFileContent", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it("recognises a service-account key under any .json name", () => {
    expect(secretFileContent("data/config.json", bytes(SERVICE_ACCOUNT_KEY))).toBe("service-account key");
    expect(secretFileContent("DATA.JSON", bytes(SERVICE_ACCOUNT_KEY))).toBe("service-account key");
  });

  it.each([
    ["config.json", '{"type": "service_account"}'],
    ["config.json", '{"private_key": "x"}'],
    ["key.txt", SERVICE_ACCOUNT_KEY],
  ])("leaves %s with %j alone", (file, content) => {
    expect(secretFileContent(file, bytes(content))).toBeUndefined();
  });
});
