// Names that are not UTF-8 (issue 20, item 6; docs/decisions/0281). Node decodes such a name with U+FFFD, so a string
// path to it names nothing: the walker and the flat locator used to report "no SKILL.md" or ENOENT. They now list it
// apart, by its bytes, and say what is wrong, naming it with the bad bytes written \xHH.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidPathError } from "@skillport/core";
import { escapeUndecodable, readDirectorySync } from "./dir-entries.js";
import { FlatRootLocator, scanNestedSkills } from "../skills/locators.js";
import { tempTree, skillMd, type TempTree } from "@skillport/testing";
import { walkTree } from "./walk.js";

let trees: TempTree[] = [];
afterEach(async () => {
  await Promise.all(trees.map((t) => t.cleanup()));
  trees = [];
});
async function tree(spec: Parameters<typeof tempTree>[0]): Promise<string> {
  const t = await tempTree(spec);
  trees.push(t);
  return t.dir;
}

/** `dir/<prefix><bytes>` as a raw path (the only way to name it). */
const raw = (dir: string, prefix: string, bytes: number[], suffix = ""): Buffer =>
  Buffer.concat([Buffer.from(path.join(dir, prefix)), Buffer.from(bytes), Buffer.from(suffix)]);

describe("escapeUndecodable", () => {
  it.each([
    [[0x63, 0x61, 0x66, 0xff], "caf\\xFF"],
    [[0xc3, 0xa9], "é"],
    [[0xc3], "\\xC3"], // a lead byte alone
    [[0xe2, 0x82], "\\xE2\\x82"], // a truncated 3-byte sequence
    [[0xc0, 0xaf], "\\xC0\\xAF"], // an overlong "/"
    [[0xed, 0xa0, 0x80], "\\xED\\xA0\\x80"], // a UTF-16 surrogate
    [[0xef, 0xbf, 0xbd], "\uFFFD"], // a real U+FFFD is text
    [[0x61, 0x80, 0xe6, 0x95, 0xb0], "a\\x80数"],
  ])("%j → %s", (bytes, expected) => {
    expect(escapeUndecodable(Uint8Array.from(bytes))).toBe(expected);
  });

  it("is the text itself for every valid UTF-8 name, and escapes some byte of every invalid one", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const bytes = Buffer.from(text, "utf8"); // a lone surrogate is encoded as U+FFFD, which is text
        expect(escapeUndecodable(bytes)).toBe(bytes.toString("utf8"));
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (bytes) => {
        const escaped = escapeUndecodable(bytes);
        if (isValid(bytes)) expect(escaped).toBe(Buffer.from(bytes).toString("utf8"));
        else expect(escaped).toMatch(/\\x[0-9A-F]{2}/);
      }),
    );
  });
});

function isValid(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

describe("the one listing and the walker", () => {
  it("lists a name that is not UTF-8 apart, keeps a real U+FFFD name, and reads an ordinary folder once", async () => {
    const dir = await tree({ "plain.txt": "x", "real-\uFFFD.txt": "x" });
    writeFileSync(raw(dir, "bad-", [0xff], ".txt"), "x");
    const listed = readDirectorySync(dir);
    expect(listed.entries.map((e) => e.name).sort()).toEqual(["plain.txt", "real-\uFFFD.txt"]);
    expect(listed.undecodable.map((e) => [e.escaped, e.isDirectory])).toEqual([["bad-\\xFF.txt", false]]);
  });

  it("reports a file or folder whose name is not UTF-8 as name-not-utf8 (collect) or throws (throw), never ENOENT", async () => {
    const dir = await tree({ "ok.md": "x", "sub/": { dir: true } });
    writeFileSync(raw(dir, "sub/caf", [0xff], ".md"), "x");
    mkdirSync(raw(dir, "d", [0xfe, 0x41]));
    const walked = walkTree(dir, { onProblem: "collect" });
    expect(walked.entries.map((e) => e.path)).toEqual(["ok.md"]);
    expect(walked.problems).toEqual([
      { path: "d\\xFEA", kind: "name-not-utf8", message: "is not valid UTF-8; rename it" },
      { path: "sub/caf\\xFF.md", kind: "name-not-utf8", message: "is not valid UTF-8; rename it" },
    ]);
    expect(() => walkTree(dir)).toThrow(InvalidPathError);
    expect(() => walkTree(dir)).toThrow(/d\\\\xFEA.*is not valid UTF-8/);
  });

  it("lets the caller's exclusion rule leave such a name out, as it would any other", async () => {
    const dir = await tree({ "ok.md": "x" });
    mkdirSync(raw(dir, ".hidden-", [0xff]));
    const walked = walkTree(dir, {
      onProblem: "collect",
      exclude: (rel) => (rel.startsWith(".") ? "hidden" : undefined),
    });
    expect(walked.problems).toEqual([]);
    expect(walked.excluded).toEqual([{ path: ".hidden-\\xFF/", reason: "hidden" }]);
  });
});

describe("a skills root holding a folder whose name is not UTF-8", () => {
  it("reports it (an error when it holds a SKILL.md, a note when not), and keeps serving the others", async () => {
    const dir = await tree({ "good/SKILL.md": skillMd("good"), "real-\uFFFD/SKILL.md": skillMd("x") });
    mkdirSync(raw(dir, "caf", [0xff]));
    writeFileSync(raw(dir, "caf", [0xff], "/SKILL.md"), skillMd("cafe"));
    mkdirSync(raw(dir, "docs-", [0x80]));
    for (const sync of [true, false]) {
      const located = await new FlatRootLocator(dir, { sync }).locate();
      expect([...located.skills.keys()]).toEqual(["good", "real-\uFFFD"]);
      expect(located.skipped.map((s) => [s.where, s.code, s.severity, s.message])).toEqual([
        [
          "caf\\xFF",
          "skill-id-not-utf8",
          "error",
          'the folder name "caf\\xFF" is not valid UTF-8 (bad bytes shown as \\xHH); rename it to serve the skill',
        ],
        [
          "docs-\\x80",
          "skill-id-not-utf8",
          "warning",
          'the folder name "docs-\\x80" is not valid UTF-8 (bad bytes shown as \\xHH), and it has no SKILL.md',
        ],
      ]);
    }
  });

  it("the nested scan (deployed versions) reports it too", async () => {
    const dir = await tree({ "skills/good/SKILL.md": skillMd("good") });
    mkdirSync(raw(dir, "skills/caf", [0xff]));
    writeFileSync(raw(dir, "skills/caf", [0xff], "/SKILL.md"), skillMd("cafe"));
    const scan = scanNestedSkills(dir);
    expect(scan.skills.map((s) => s.where)).toEqual(["skills/good"]);
    expect(scan.skipped.map((s) => [s.where, s.code])).toEqual([["skills/caf\\xFF", "file-name-not-utf8"]]);
    expect(scan.skipped[0]!.message).toBe("skills/caf\\xFF is not valid UTF-8 (bad bytes shown as \\xHH); rename it");
  });
});
