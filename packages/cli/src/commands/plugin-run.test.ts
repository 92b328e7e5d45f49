import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CALLER_SOURCE,
  KITCHEN_SINK_CHILDREN,
  KITCHEN_SINK_SOURCE,
  UPLOADER_SOURCE,
  writePluginFixture,
} from "../../../plugin-host/src/host/__fixtures__/plugins.js";
import { runInProcess } from "../test-support.js";

interface Result {
  code: number;
  out: string;
  err: string;
}

/** The whole program in-process (program.ts: same registration and error mapping as the binary). */
async function cli(args: string[], cwd: string): Promise<Result> {
  const { code, stdout, stderr } = await runInProcess(args, cwd);
  return { code, out: stdout, err: stderr };
}

let root: string;
let single: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skillport-plugin-run-"));
  await writePluginFixture(join(root, "sink"), {
    children: KITCHEN_SINK_CHILDREN,
    permission: ["file-upload:allow"],
    source: KITCHEN_SINK_SOURCE,
  });
  single = await writePluginFixture(join(root, "uploader"), { pluginId: "uploader", source: UPLOADER_SOURCE });
  await writeFile(join(root, "input.json"), '{"text":"from file"}');
  await writePluginFixture(join(root, "caller"), { pluginId: "caller", source: CALLER_SOURCE });
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe("skillport plugin run (in-process)", () => {
  it("prints stream events as they arrive, then the output; exit 0", async () => {
    const result = await cli(["plugin", "run", "sink", "--tool", "echo", "--input", '{"text":"hi"}'], root);
    expect(result.out).toBe('[answer] one\n[fastAnswer] two\n{\n  "text": "hi"\n}\n');
    expect(result.err).toMatch(
      /^running fixture@1\.0\.0 \([0-9a-f]{8}\) tool "echo" — .*network (isolated|NOT isolated), heap 512 MB\n$/,
    );
    expect(result.code).toBe(0);
  });

  it("passes --system-var fields to the tool (the rest is filled in)", async () => {
    const systemVar = {
      app: { id: "app-1", name: "App" },
      chat: { chatId: "chat-42", uid: "u-7" },
      time: "2026-01-02T03:04:05.000Z",
    };
    const result = await cli(
      ["plugin", "run", "caller", "--input", '{"text":"x"}', "--system-var", JSON.stringify(systemVar), "--json"],
      root,
    );
    expect(result.code, result.err).toBe(0);
    const last = JSON.parse(result.out.trim().split("\n").at(-1) ?? "") as { data: { text: string } };
    const seen = (JSON.parse(last.data.text) as { systemVar: Record<string, unknown> }).systemVar;
    expect(seen).toMatchObject(systemVar);
    expect(typeof seen.invokeToken).toBe("string");
  });

  it("answers ctx.invoke from --services (user, team, WeCom token)", async () => {
    const services = {
      user: { username: "ada", orgs: [{ pathId: "o", name: "Org" }], groups: [] },
      wecomCorpToken: { access_token: "corp-tok", expires_in: 7200 },
    };
    const dir = await writePluginFixture(join(root, "caller-permitted"), {
      pluginId: "caller",
      permission: ["userInfo:read", "teamInfo:read"],
      source: CALLER_SOURCE,
    });
    const result = await cli(
      ["plugin", "run", dir, "--input", '{"text":"x"}', "--services", JSON.stringify(services), "--json"],
      root,
    );
    expect(result.code, result.err).toBe(0);
    const last = JSON.parse(result.out.trim().split("\n").at(-1) ?? "") as { data: { text: string } };
    const { results } = JSON.parse(last.data.text) as { results: Record<string, unknown[]> };
    expect(results.userInfo).toEqual([services.user, null]);
    expect(results.getWecomCorpToken).toEqual([services.wecomCorpToken, null]);
    expect(results.teamInfo?.[1]).toMatchObject({ error: "NotConfigured" });
  });

  it("prints NDJSON events with --json and reads @file input", async () => {
    const result = await cli(
      ["plugin", "run", "sink/dist", "--tool", "echo", "--input", "@input.json", "--json"],
      root,
    );
    expect(
      result.out
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([
      { type: "stream", data: { type: "answer", content: "one" } },
      { type: "stream", data: { type: "fastAnswer", content: "two" } },
      { type: "response", data: { text: "from file" } },
    ]);
    expect(result.code).toBe(0);
  });

  it("exits 1 when the tool fails, with secrets redacted", async () => {
    const result = await cli(
      ["plugin", "run", "sink", "--tool", "leak", "--input", '{"text":"x"}', "--secrets", '{"apiKey":"sk-secret-99"}'],
      root,
    );
    expect(result.code).toBe(1);
    expect(result.out).toBe("[answer] using key [redacted]\n");
    expect(result.err).toContain(
      'skillport: tool "leak" of plugin "fixture": upstream rejected key [redacted] (401)\n',
    );
    expect(result.out + result.err).not.toContain("sk-secret-99");
  });

  it("runs the only tool of a single-tool plugin without --tool", async () => {
    const result = await cli(["plugin", "run", single, "--input", '{"text":"x"}', "--json"], root);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out.trim()).data.text).toContain("PermissionDenied");
  });

  it.each([
    [
      ["plugin", "run", "sink", "--tool", "echo", "--input", '{"text":""}'],
      'skillport: tool "echo" of plugin "fixture": input field "text": Too small: expected string to have >=1 characters\n',
    ],
    [
      ["plugin", "run", "sink", "--input", "{}"],
      `skillport: plugin "fixture" has several tools; choose one with --tool (${KITCHEN_SINK_CHILDREN.join(", ")})\n`,
    ],
    [
      ["plugin", "run", "sink", "--tool", "nope", "--input", "{}"],
      `skillport: plugin "fixture" has no tool "nope" (tools: ${KITCHEN_SINK_CHILDREN.join(", ")})\n`,
    ],
    [
      ["plugin", "run", "sink", "--tool", "echo", "--input", "{oops"],
      "skillport: --input is not valid JSON: Expected property name or '}' in JSON at position 1\n",
    ],
    [
      ["plugin", "run", "sink", "--tool", "echo", "--input", "{}", "--secrets", "{sk-123"],
      "skillport: --secrets is not valid JSON\n",
    ],
    [
      ["plugin", "run", "sink", "--tool", "echo", "--input", "@missing.json"],
      'skillport: --input: cannot read file "missing.json"\n',
    ],
    [["plugin", "run", "nowhere", "--input", "{}"], "skillport: nowhere: no such file or directory\n"],
    [
      ["plugin", "run", "sink", "--tool", "echo", "--input", "{}", "--timeout", "0"],
      'skillport: --timeout must be a number of seconds between 1 and 600, got "0"\n',
    ],
    [
      ["plugin", "run", "sink", "--tool", "echo", "--input", "{}", "--system-var", "[1]"],
      "skillport: --system-var must be a JSON object\n",
    ],
  ])("usage errors exit 2 with one line: %j", async (args, message) => {
    const result = await cli(args, root);
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
  });
});

// The built binary (npx tsc -b packages/cli): the same command as users run it.
const main = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

describe("skillport plugin run (built binary)", () => {
  beforeAll(() => {
    if (!existsSync(main)) throw new Error("build the CLI first: npx tsc -b packages/cli");
  });
  const exec = (args: string[]) =>
    new Promise<Result>((resolve) => {
      execFile(process.execPath, [main, ...args], { cwd: root }, (error, out, err) => {
        resolve({ code: error ? Number(error.code) : 0, out, err });
      });
    });

  it("runs a tool end to end and exits 0", async () => {
    const result = await exec(["plugin", "run", "sink", "--tool", "echo", "--input", '{"text":"e2e"}', "--json"]);
    expect(result.out.trim().split("\n").at(-1)).toBe('{"type":"response","data":{"text":"e2e"}}');
    expect(result.code).toBe(0);
  });

  it("prints a warning and the output when the output breaks its schema, and exits 0", async () => {
    const result = await exec(["plugin", "run", "sink", "--tool", "badOutput", "--input", '{"text":"x"}']);
    expect(result.code).toBe(0);
    expect(result.err).toContain(
      'warning: tool "badOutput" of plugin "fixture": the output does not match outputSchema',
    );
    expect(JSON.parse(result.out)).toEqual({ text: 42 });
  });

  it("exits 1 with a one-line error when the tool fails (--strict-output)", async () => {
    const result = await exec([
      "plugin",
      "run",
      "sink",
      "--tool",
      "badOutput",
      "--input",
      '{"text":"x"}',
      "--strict-output",
    ]);
    expect(result.code).toBe(1);
    expect(result.err.trim().split("\n").at(-1)).toBe(
      'skillport: tool "badOutput" of plugin "fixture": output field "text": Invalid input: expected string, received number',
    );
  });
});
