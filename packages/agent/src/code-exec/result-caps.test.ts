// Issue 19: no tool result is unbounded. list_directory on 200,000 entries once returned 25 MB (or threw "Maximum call
// stack size exceeded"); every result now passes one cap with a notice, and listings name at most maxListedEntries.
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { makeTempDir, removeDir } from "@skillport/testing";
import { defineTool, DEFAULT_MAX_TOOL_RESULT_CHARS, resultText, SkillBox, type ToolResult } from "../index.js";

const ENTRIES = 200_000;
let root: string;
let box: SkillBox;

beforeAll(async () => {
  // tmpfs when there is one: creating 200,000 files on a busy disk takes minutes, in memory seconds.
  root = existsSync("/dev/shm")
    ? realpathSync(mkdtempSync("/dev/shm/skillport-caps-"))
    : await makeTempDir("skillport-caps-");
  box = new SkillBox({ toolkit: [bigTool()] });
  box.codeExecution().workDir(path.join(root, "work")).withRead().withWrite().enable();
  const many = path.join(box.codeExecutionConfig!.workDir, "many");
  mkdirSync(path.join(many, "sub-0"), { recursive: true });
  for (let i = 0; i < ENTRIES; i++) closeSync(openSync(path.join(many, `f-${String(i).padStart(6, "0")}`), "w"));
  // 3 MB of short lines: about 5 MB once numbered.
  writeFileSync(path.join(box.codeExecutionConfig!.workDir, "big.txt"), "line\n".repeat(600_000));
}, 300_000);
afterAll(async () => {
  await box.close();
  await removeDir(root);
});

/** A toolkit tool with a 1 MB text part, a 1 MB JSON part and an image. */
function bigTool() {
  return defineTool({
    name: "big",
    description: "Returns too much.",
    input: z.object({}),
    handler: (): ToolResult => ({
      content: [
        { type: "text", text: "a".repeat(1_000_000) },
        { type: "json", value: { b: "b".repeat(1_000_000) } },
        { type: "image", mimeType: "image/png", data: "c".repeat(1_000_000) },
      ],
      isError: false,
    }),
  });
}

describe("tool results are capped", () => {
  it(`list_directory on ${ENTRIES.toLocaleString("en")} entries: names the first 1,000, counts the rest, no stack overflow`, async () => {
    const result = await box.callTool("list_directory", { dir_path: "many" });
    const text = resultText(result);
    expect(result.isError).toBe(false);
    expect(text.length).toBeLessThan(DEFAULT_MAX_TOOL_RESULT_CHARS);
    expect(text).toContain("Directories:\n");
    expect(text).toContain(`[truncated: ${ENTRIES + 1 - 1_000} more not listed (limit 1000 entries)]`);
    expect(text.trimEnd().endsWith(`Total: 1 directories, ${ENTRIES} files`)).toBe(true);
    expect(text.split("\n").filter((line) => line.startsWith("  /")).length).toBe(1_000);
  });

  it("view_text_file of a 3 MB file is cut at the box's cap with a notice", async () => {
    const text = resultText(await box.callTool("view_text_file", { file_path: "big.txt" }));
    expect(text.length).toBeLessThanOrEqual(DEFAULT_MAX_TOOL_RESULT_CHARS + 200);
    expect(text).toMatch(/\[truncated: the result held \d+ characters; only the first 256000 are shown\]$/);
  });

  it("a toolkit tool's text, JSON and image parts pass the same cap", async () => {
    const small = new SkillBox({ toolkit: [bigTool()], maxToolResultChars: 1_500_000 });
    const result = await small.callTool("big", {});
    expect(result.content.map((p) => p.type)).toEqual(["text", "text", "text"]);
    expect(resultText(result).length).toBeLessThanOrEqual(1_500_200);
    expect(resultText(result)).toMatch(/held 3000008 characters; only the first 1500000 are shown\]$/);
  });

  it.each([0, -1, 1.5])("maxToolResultChars %s is refused", (value) => {
    expect(() => new SkillBox({ maxToolResultChars: value })).toThrow(/maxToolResultChars/);
  });
});
