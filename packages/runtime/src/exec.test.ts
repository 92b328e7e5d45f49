import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { readFile, symlink, mkdir, stat } from "node:fs/promises";
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import { execCommand } from "./exec.js";
import { TailCollector, formatObservation } from "./observation.js";
import { createSandbox } from "@skillport/sandbox";
import { tempDir, haveBubblewrap } from "./__fixtures__/helpers.js";

const hasBwrap = haveBubblewrap(console.warn);
let ws: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  ws = await tempDir();
});
afterAll(() => ws.cleanup());

describe("TailCollector", () => {
  const collect = (text: string, maxLines: number, maxBytes: number, chunk = 7) => {
    const c = new TailCollector({ maxLines, maxBytes });
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += chunk) c.write(bytes.subarray(i, i + chunk));
    return c.result();
  };

  it.each([
    ["", 3, 100, { text: "", truncated: false, totalLines: 0, shownLines: 0 }],
    ["a\nb\n", 3, 100, { text: "a\nb\n", truncated: false, totalLines: 2, firstLineShown: 1 }],
    ["a\nb\nc\nd\n", 2, 100, { text: "c\nd\n", truncated: true, totalLines: 4, firstLineShown: 3, shownLines: 2 }],
    ["a\nb\nc", 2, 100, { text: "b\nc", truncated: true, totalLines: 3, firstLineShown: 2 }],
    ["aaaa\nbb\ncc\n", 10, 6, { text: "bb\ncc\n", truncated: true, totalLines: 3, firstLineShown: 2 }],
    ["aaaa\nbbbbbbbbbb\ncc\n", 10, 6, { text: "cc\n", truncated: true, totalLines: 3, firstLineShown: 3 }],
  ] as const)("%j (lines %i, bytes %i)", (text, maxLines, maxBytes, expected) => {
    expect(collect(text, maxLines, maxBytes)).toMatchObject(expected);
  });

  it("property: the tail is a suffix of whole lines within both limits", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ maxLength: 12 }).map((s) => s.replace(/\n/g, "")),
          { maxLength: 40 },
        ),
        fc.boolean(),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 9 }),
        (lines, finalNewline, maxLines, maxBytes, chunk) => {
          const text = lines.join("\n") + (finalNewline && lines.length > 0 ? "\n" : "");
          const r = collect(text, maxLines, maxBytes, chunk);
          expect(text.endsWith(r.text)).toBe(true);
          expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(maxBytes);
          expect(r.shownLines).toBeLessThanOrEqual(maxLines);
          const cutAt = text.length - r.text.length;
          // Whole lines, except when one line alone is longer than maxBytes: then its end is shown.
          const wholeLines = cutAt === 0 || text[cutAt - 1] === "\n";
          expect(wholeLines || (r.shownLines === 1 && Buffer.byteLength(r.text) === maxBytes)).toBe(true);
          expect(r.truncated).toBe(r.text !== text);
        },
      ),
    );
  });
});

describe("formatObservation", () => {
  const tail = {
    text: "x\n",
    truncated: false,
    totalLines: 1,
    totalBytes: 2,
    firstLineShown: 1,
    shownLines: 1,
    shownBytes: 2,
  };
  it.each([
    [{ exitCode: 0, signal: null, timedOut: false }, "x\n"],
    [{ exitCode: 2, signal: null, timedOut: false }, "x\n\nCommand exited with code 2"],
    [{ exitCode: null, signal: "SIGKILL", timedOut: true }, "x\n\nCommand timed out after 5 s and was killed."],
    [
      { exitCode: null, signal: "SIGKILL", timedOut: false, outputLimitBytes: 4 * 1024 * 1024 },
      "x\n\nCommand printed more than 4.0 MiB and was killed.",
    ],
    [{ exitCode: null, signal: "SIGKILL", timedOut: false }, "x\n\nCommand was killed by signal SIGKILL"],
  ])("%j", (status, expected) => {
    expect(
      formatObservation({ tail, timeoutMs: 5000, fullOutputPath: undefined, fullOutputComplete: true, ...status }),
    ).toBe(expected);
  });
});

const kinds: Array<"process" | "bubblewrap"> = hasBwrap ? ["process", "bubblewrap"] : ["process"];
describe.each(kinds)("execCommand (%s)", (kind) => {
  const sandbox = () => createSandbox({ kind, writableDir: ws.dir });

  it("merges stdout and stderr in arrival order and reports a failing exit code", async () => {
    const r = await execCommand(sandbox(), "for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done; exit 4");
    expect(r.observation).toBe(
      "out1\nerr1\nout2\nerr2\nout3\nerr3\nout4\nerr4\nout5\nerr5\n\nCommand exited with code 4",
    );
    expect(r).toMatchObject({ exitCode: 4, truncated: false, fullOutputPath: undefined, sandbox: kind });
  });

  it("keeps the last 2,000 lines and saves the full output in the workspace", async () => {
    const r = await execCommand(sandbox(), "seq 1 5000");
    expect(r.truncated).toBe(true);
    const [body, notice] = r.observation.split("\n\n");
    expect(body!.split("\n")[0]).toBe("3001");
    expect(body!.endsWith("5000\n") || body!.endsWith("5000")).toBe(true);
    expect(notice).toMatch(
      /^\[Output truncated: showing lines 3001-5000 of 5000 \(.+\)\. Full output saved to \.skillport\/outputs\/exec-.+\.log\.\]$/,
    );
    const full = await readFile(path.join(ws.dir, r.fullOutputPath!), "utf8");
    expect(full.split("\n").length).toBe(5001);
  });

  it("cuts at 50 KiB when lines are long", async () => {
    const r = await execCommand(sandbox(), "for i in $(seq 1 100); do printf '%05d%01000d\\n' $i 0; done");
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(r.tail.text)).toBeLessThanOrEqual(50 * 1024);
    expect(r.tail.shownLines).toBe(50);
    // 1,006-byte lines: 50 fit in 51,200 bytes.
    expect(r.tail.text.startsWith("00051")).toBe(true);
  });

  it("validates timeout and cwd, and runs in a workspace subdirectory", async () => {
    await mkdir(path.join(ws.dir, "proj"), { recursive: true });
    await expect(execCommand(sandbox(), "true", { timeout: 601 })).rejects.toThrow(/between 1 and 600 seconds/);
    await expect(execCommand(sandbox(), "true", { cwd: "../x" })).rejects.toThrow(/escapes the workspace/);
    const r = await execCommand(sandbox(), "pwd", { cwd: "proj" });
    expect(r.observation).toBe(`${path.join(ws.dir, "proj")}\n`);
  });

  it("cuts a command that prints 1 GB: killed at the output limit, observation and full-output file bounded", async () => {
    const r = await execCommand(sandbox(), "yes | head -c 1G; echo finished", {
      maxOutputBytes: 4 * 1024 * 1024,
      maxFullOutputBytes: 1024 * 1024,
    });
    expect(r).toMatchObject({ outputLimitExceeded: true, truncated: true, timedOut: false });
    expect(r.tail.totalBytes).toBe(4 * 1024 * 1024);
    expect(r.tail.shownLines).toBe(2000);
    const notes = r.observation.slice(r.observation.lastIndexOf("\n\n") + 2);
    expect(notes).toBe(
      `[Output truncated: showing lines 2095153-2097152 of 2097152 (3.9 KiB of 4.0 MiB). Full output saved to ${r.fullOutputPath} (itself cut at its size limit).]\n` +
        "Command printed more than 4.0 MiB and was killed.",
    );
    expect(r.observation).not.toContain("finished");
    expect((await stat(path.join(ws.dir, r.fullOutputPath!))).size).toBe(1024 * 1024);
  });

  it("reports a timeout", async () => {
    const r = await execCommand(sandbox(), "echo start; sleep 30", { timeout: 0.3 });
    expect(r.timedOut).toBe(true);
    expect(r.observation).toBe("start\n\nCommand timed out after 0.3 s and was killed.");
  });
});

it("never writes through an output dir that is a symlink out of the workspace: the link is replaced by a folder", async () => {
  const other = await tempDir();
  try {
    await mkdir(path.join(ws.dir, "links"), { recursive: true });
    await symlink(other.dir, path.join(ws.dir, "links", "out"));
    const r = await execCommand(createSandbox({ kind: "process", writableDir: ws.dir }), "seq 1 3000", {
      outputDir: "links/out",
    });
    expect(r.fullOutputPath).toMatch(/^links\/out\/exec-/);
    expect(lstatSync(path.join(ws.dir, "links", "out")).isDirectory()).toBe(true);
    expect(readdirSync(other.dir)).toEqual([]);
    await expect(
      execCommand(createSandbox({ kind: "process", writableDir: ws.dir }), "true", { outputDir: "../x" }),
    ).rejects.toThrow(/escapes the workspace/);
  } finally {
    await other.cleanup();
  }
});
