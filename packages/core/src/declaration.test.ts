import { describe, expect, it } from "vitest";
import { effectivePolicy, readDeclaration } from "./declaration.js";
import { validateSkillMd } from "./validate.js";

const skill = (metadata: string): string =>
  `---\nname: fetcher\ndescription: Fetches things.\nmetadata:\n  author: me\n${metadata}---\n# Fetcher\n`;

describe("least-privilege declarations (metadata skillport.*)", () => {
  it("reads every key into a declaration", () => {
    const { declaration, problems } = readDeclaration({
      author: "me",
      "skillport.network": "api.example.com:443 example.org/v1/ example.org/v2 [::1]:8080",
      "skillport.network-private": "localhost:9000",
      "skillport.env": "API_TOKEN, REGION",
      "skillport.bins": "curl /usr/bin/jq",
      "skillport.writes": "./out/ cache",
      "skillport.timeout": "20s",
      "skillport.memory": "256MiB",
    });
    expect(problems).toEqual([]);
    expect(declaration).toEqual({
      network: [
        { host: "api.example.com", port: 443, private: false },
        { host: "example.org", paths: ["/v1/", "/v2"], private: false },
        { host: "::1", port: 8080, private: false },
        { host: "localhost", port: 9000, private: true },
      ],
      env: ["API_TOKEN", "REGION"],
      bins: ["curl", "/usr/bin/jq"],
      writes: ["out", "cache"],
      timeoutMs: 20_000,
      maxMemoryBytes: 256 * 1024 * 1024,
    });
  });

  it("declares nothing without a skillport. key", () => {
    expect(readDeclaration({ author: "me" })).toEqual({ declaration: undefined, problems: [] });
    expect(readDeclaration(undefined).declaration).toBeUndefined();
  });

  it("refuses malformed entries, IP tricks and escapes", () => {
    const { problems } = readDeclaration({
      "skillport.network": "https://x.example 2130706433 127.1 host:99999 ok.example/../etc",
      "skillport.env": "NOT-A-NAME",
      "skillport.writes": "../outside /abs",
      "skillport.timeout": "forever",
      "skillport.memory": "1KiB",
      "skillport.netwrok": "x",
      "skillport.bins": "rel/path",
    });
    expect(problems.map((p) => [p.key, p.severity])).toEqual([
      ["skillport.network", "error"],
      ["skillport.network", "error"],
      ["skillport.network", "error"],
      ["skillport.network", "error"],
      ["skillport.network", "error"],
      ["skillport.env", "error"],
      ["skillport.writes", "error"],
      ["skillport.writes", "error"],
      ["skillport.timeout", "error"],
      ["skillport.memory", "error"],
      ["skillport.netwrok", "warning"],
      ["skillport.bins", "error"],
    ]);
  });

  it("validate reports malformed declarations at their own line, under every profile", () => {
    const text = skill(`  skillport.env: "GOOD BAD-NAME"\n  skillport.timeout: 2h\n`);
    for (const profile of ["spec", "lenient"] as const) {
      const { diagnostics, valid } = validateSkillMd(text, { profile, file: "SKILL.md", lint: false });
      const found = diagnostics.filter((d) => d.code.startsWith("declaration-"));
      expect(found.map((d) => [d.code, d.line, d.column])).toEqual([
        ["declaration-invalid", 6, 3],
        ["declaration-invalid", 7, 3],
      ]);
      expect(found[0]!.file).toBe("SKILL.md");
      expect(valid).toBe(false);
    }
    expect(validateSkillMd(skill(`  skillport.env: GOOD\n`), { profile: "spec", lint: false }).valid).toBe(true);
  });
});

describe("effective policy = intersection(operator, declaration)", () => {
  const declared = readDeclaration({
    "skillport.network": "api.example.com evil.example:443",
    "skillport.network-private": "localhost:9000",
    "skillport.env": "API_TOKEN AWS_SECRET_ACCESS_KEY",
    "skillport.writes": "out secrets",
    "skillport.timeout": "500s",
    "skillport.memory": "4GiB",
  }).declaration;

  it("no declaration: today's default (no network, no variables, the workspace)", () => {
    const p = effectivePolicy({ network: "public", env: ["API_TOKEN"], timeoutMs: 30_000 }, undefined);
    expect(p).toMatchObject({
      declared: false,
      network: [],
      env: [],
      writes: "workspace",
      bins: "any",
      timeoutMs: 30_000,
      narrowed: [],
    });
  });

  it("a widening attempt is narrowed and reported", () => {
    const p = effectivePolicy(
      {
        network: [{ host: "api.example.com", port: 443, paths: ["/v1/"], private: false }],
        env: ["API_TOKEN"],
        writes: ["out"],
        timeoutMs: 30_000,
        maxMemoryBytes: 512 * 1024 * 1024,
      },
      declared,
    );
    expect(p.network).toEqual([{ host: "api.example.com", port: 443, paths: ["/v1/"], private: false }]);
    expect(p.env).toEqual(["API_TOKEN"]);
    expect(p.writes).toEqual(["out"]);
    expect(p.timeoutMs).toBe(30_000);
    expect(p.maxMemoryBytes).toBe(512 * 1024 * 1024);
    expect(p.narrowed.map((n) => `${n.what}:${n.asked}`)).toEqual([
      "network:api.example.com",
      "network:evil.example:443",
      "network:localhost:9000",
      "env:AWS_SECRET_ACCESS_KEY",
      "writes:secrets",
      "timeout:500000ms",
      `memory:${4 * 1024 ** 3}`,
    ]);
    expect(p.narrowed[0]!.granted).toBe("api.example.com:443/v1/");
  });

  it("'public' grants declared public names, never private ones; 'none' grants nothing", () => {
    const pub = effectivePolicy({ network: "public" }, declared);
    expect(pub.network.map((d) => d.host)).toEqual(["api.example.com", "evil.example"]);
    expect(pub.narrowed.filter((n) => n.what === "network").map((n) => n.asked)).toEqual(["localhost:9000"]);
    expect(effectivePolicy({}, declared).network).toEqual([]);
  });
});
