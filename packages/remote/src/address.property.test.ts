import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RemoteSourceError } from "./errors.js";
import { normalizeRepoPath, parseGitAddress } from "./git/address.js";

describe("git address rules (properties)", () => {
  it("a repository path is refused or comes out relative, without '..', '.git' or control characters", () => {
    const segment = fc.oneof(
      fc.constantFrom("..", ".", "", ".git", "a\\b", "x\0y", "skills", "é"),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), fc.boolean(), (parts, lead) => {
        const input = `${lead ? "/" : ""}${parts.join("/")}`;
        let out: string;
        try {
          out = normalizeRepoPath(input);
        } catch (error) {
          expect(error).toBeInstanceOf(RemoteSourceError);
          return;
        }
        expect(out.startsWith("/")).toBe(false);
        for (const part of out === "" ? [] : out.split("/")) {
          expect(["", ".", "..", ".git"]).not.toContain(part);
          expect(part).not.toMatch(/[\0-\x1f\\]/);
        }
      }),
    );
  });

  it("the password never appears in the display form or the URL git is given", () => {
    const secret = fc.string({ minLength: 4, maxLength: 16 }).filter((s) => /^[A-Za-z0-9._~!$&'()*+,;=-]+$/.test(s));
    fc.assert(
      fc.property(
        secret,
        fc.constantFrom("git+https", "git+http"),
        fc.constantFrom("", "#main", "#v1:skills"),
        (password, scheme, fragment) => {
          const parsed = parseGitAddress(`${scheme}://user:${password}@host.example/r.git${fragment}`, "/work");
          expect(parsed.password).toBe(password);
          expect(parsed.url).not.toContain(password);
          expect(parsed.display).not.toContain(`:${password}@`);
        },
      ),
    );
  });
});

describe("gitEnvironment", () => {
  it("keeps the user's GIT_CONFIG_* entries and GIT_ASKPASS, appends its own, and always disables prompts and ext::", async () => {
    const { gitEnvironment } = await import("./git/run-git.js");
    const env = gitEnvironment(
      { "http.https://h/r.git.extraHeader": "Authorization: Basic x" },
      {
        GIT_CONFIG_COUNT: "1",
        GIT_CONFIG_KEY_0: "credential.helper",
        GIT_CONFIG_VALUE_0: "store",
        GIT_ASKPASS: "/usr/local/bin/token-askpass",
        GIT_TERMINAL_PROMPT: "1",
        GIT_ALLOW_PROTOCOL: "ext",
      },
    );
    expect(env).toMatchObject({
      GIT_CONFIG_COUNT: "2",
      GIT_CONFIG_KEY_0: "credential.helper",
      GIT_CONFIG_KEY_1: "http.https://h/r.git.extraHeader",
      GIT_CONFIG_VALUE_1: "Authorization: Basic x",
      GIT_ASKPASS: "/usr/local/bin/token-askpass",
      GIT_TERMINAL_PROMPT: "0",
      GIT_ALLOW_PROTOCOL: "file:git:http:https:ssh",
      GIT_LFS_SKIP_SMUDGE: "1",
    });
  });
});
