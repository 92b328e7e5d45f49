import { describe, expect, it } from "vitest";
import { AGENTS } from "./agents.js";
import { renameSkill, type CollectedSkill } from "./collect.js";
import { InstallError } from "./errors.js";

const text = (b: Uint8Array) => Buffer.from(b).toString("utf8");
const skill = (skillMd: string): CollectedSkill => ({
  id: "skills/alpha",
  name: "alpha",
  description: "d",
  files: [
    { path: "SKILL.md", bytes: Buffer.from(skillMd) },
    { path: "notes.md", bytes: Buffer.from("# name: alpha\n") },
  ],
  notes: [],
});

describe("renameSkill (add --as, decision 0420)", () => {
  it("rewrites only the frontmatter's name line, keeping CRLF, quoting and every other byte", () => {
    const crlf = '---\r\nname: "alpha"\r\ndescription: Does alpha, named alpha.\r\n---\r\n\r\nname: alpha\r\n';
    const out = renameSkill(skill(crlf), "alpha-two");
    expect(out.name).toBe("alpha-two");
    expect(text(out.files[0]?.bytes ?? new Uint8Array())).toBe(
      crlf.replace('name: "alpha"\r\n', "name: alpha-two\r\n"),
    );
    expect(text(out.files[1]?.bytes ?? new Uint8Array())).toBe("# name: alpha\n");
    // Deterministic: the same input and name give the same bytes (a restore rewrites and gets the lock's digest).
    expect(renameSkill(skill(crlf), "alpha-two").files[0]?.bytes).toEqual(out.files[0]?.bytes);
  });

  it("refuses a name that is not a skill name, and a name that is not on one line", () => {
    const md = "---\nname: alpha\ndescription: Does alpha.\n---\n";
    expect(() => renameSkill(skill(md), "Not_Valid")).toThrow(InstallError);
    expect(() => renameSkill(skill(md), "../x")).toThrow(/not a skill name/);
    const folded = "---\nname: >-\n  alpha\ndescription: Does alpha.\n---\n";
    expect(() => renameSkill(skill(folded), "beta")).toThrow(/not on one "name:" line/);
  });

  it("the same name is no rename", () => {
    const s = skill("---\nname: alpha\ndescription: Does alpha.\n---\n");
    expect(renameSkill(s, "alpha")).toBe(s);
  });
});

describe("agents table: links and listing budgets (decision 0421)", () => {
  it("says which agents do not follow links and where that was reported; Claude Code's listing budget reads its setting", () => {
    const ignoring = AGENTS.filter((a) => a.links?.followed === false).map((a) => a.id);
    expect(ignoring).toEqual(["antigravity", "cursor", "github-copilot", "opencode"]);
    for (const a of AGENTS) if (a.links) expect(a.links.source).toMatch(/#\d+/);
    const claude = AGENTS.find((a) => a.id === "claude-code")?.catalog;
    expect(claude?.maxChars({})).toBe(8000);
    expect(claude?.maxChars({ SLASH_COMMAND_TOOL_CHAR_BUDGET: "20000" })).toBe(20000);
    expect(claude?.maxChars({ SLASH_COMMAND_TOOL_CHAR_BUDGET: "lots" })).toBe(8000);
    expect(claude?.maxEntryChars).toBe(1536);
  });
});
