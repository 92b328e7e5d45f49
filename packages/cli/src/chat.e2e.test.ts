// Runs the BUILT CLI (`packages/cli/dist/cli.js`) in a child process against the scripted model server: `chat -p …
// --json --code-exec` over a real skill folder, for the OpenAI-compatible and the Anthropic protocol; the skill's tool
// group switches on when the model loads it and its script runs in bubblewrap. Also `tools`, the exit-2 cases and
// Ctrl-C.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBubblewrap } from "@skillport/sandbox";
import { tempTree, type TempTree } from "@skillport/testing";
import { startScriptedServer } from "../../agent/test/scripted-server.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = path.join(repo, "packages/cli/dist/cli.js");
const built = existsSync(path.join(repo, "packages/cli/dist/commands/chat.js"));
const hasBwrap = findBubblewrap() !== undefined;
if (!built || !hasBwrap) {
  if (process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS)
    throw new Error(`chat e2e needs ${!built ? "the built CLI (npm run build)" : "bwrap"}`);
  console.log(`skipping chat e2e: ${!built ? "the CLI is not built (npm run build)" : "bwrap is not installed"}`);
}

const run = async (args: string[], env: Record<string, string> = {}) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/", ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
};

type Schema = { properties: { skillId: { enum: string[] } } };
let skills: TempTree;
beforeAll(async () => {
  skills = await tempTree({
    "csv-report/SKILL.md":
      "---\nname: csv-report\ndescription: Summarise CSV files. Use when the user asks about a CSV.\n---\n# CSV report\nRun scripts/summary.py with the row count.\n",
    "csv-report/scripts/summary.py":
      "import sys, os\nprint('rows:', sys.argv[1], 'shadow visible:', os.path.exists('/etc/shadow'))\n",
  });
});
afterAll(() => skills.cleanup());

describe.skipIf(!built || !hasBwrap)("skillport chat (built CLI) against scripted model servers", () => {
  it.each([
    [
      "openai",
      (url: string) => ["--model", "openai:gpt-test", "--base-url", `${url}/v1`],
      { OPENAI_API_KEY: "sk-e2e-key" },
    ],
    [
      "anthropic",
      (url: string) => ["--model", "anthropic:claude-test", "--base-url", url],
      { ANTHROPIC_API_KEY: "sk-ant-e2e-key" },
    ],
  ] as const)(
    "%s: the skill's tool group activates and its script runs in bubblewrap",
    async (_protocol, modelArgs, env) => {
      const server = await startScriptedServer([
        (request) => {
          const load = request.tools[0] as { input_schema?: Schema; function?: { parameters: Schema } };
          return {
            toolCalls: [
              {
                name: "load_skill_through_path",
                arguments: {
                  skillId: (load.input_schema ?? load.function?.parameters)?.properties.skillId.enum[0],
                  path: "SKILL.md",
                },
              },
            ],
          };
        },
        {
          toolCalls: [
            { name: "run_skill_script", arguments: { skillId: "csv-report", script: "summary.py", args: ["7"] } },
          ],
        },
        { text: "7 rows." },
      ]);
      try {
        const result = await run(
          ["chat", skills.dir, ...modelArgs(server.url), "-p", "how many rows?", "--json", "--code-exec"],
          env,
        );
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
        const transcript = JSON.parse(result.stdout) as {
          text: string;
          stopReason: string;
          steps: number;
          usage: { inputTokens: number };
          messages: Array<{
            role: string;
            name?: string;
            result?: { content: Array<{ text: string }>; details?: { sandbox?: string } };
          }>;
        };
        expect([transcript.text, transcript.stopReason, transcript.steps]).toEqual(["7 rows.", "end", 3]);
        expect(transcript.usage.inputTokens).toBe(30);
        expect(server.requests[0]?.toolNames).not.toContain("run_skill_script");
        expect(server.requests[1]?.toolNames).toContain("run_skill_script");
        const script = transcript.messages.find((m) => m.role === "tool" && m.name === "run_skill_script");
        expect(script?.result?.content[0]?.text).toBe(
          "<returncode>0</returncode><stdout>rows: 7 shadow visible: False\n</stdout><stderr></stderr>",
        );
        expect(script?.result?.details?.sandbox).toBe("bubblewrap");
        expect(server.requests[2]?.toolResults[0]).toContain("rows: 7");
        expect(result.stdout).not.toContain("e2e-key");
      } finally {
        await server.close();
      }
    },
  );

  it("prints the final answer without --json", async () => {
    const server = await startScriptedServer([{ text: "Hello from the model." }]);
    try {
      const result = await run(
        ["chat", skills.dir, "--model", "openai:m", "--base-url", `${server.url}/v1`, "-p", "hi"],
        { OPENAI_API_KEY: "k-1234" },
      );
      expect(result).toEqual({ code: 0, stdout: "Hello from the model.\n", stderr: "" });
    } finally {
      await server.close();
    }
  });

  it("exits 2 with a clear message when the key is missing or the server cannot be reached", async () => {
    const missing = await run(["chat", skills.dir, "--model", "anthropic:c", "-p", "hi"]);
    expect(missing).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "skillport: ANTHROPIC_API_KEY is not set: export it, or pass --api-key-env NAME to read the key from another variable\n",
    });
    const gone = await startScriptedServer([]);
    await gone.close();
    const unreachable = await run(
      ["chat", skills.dir, "--model", "openai:m", "--base-url", `${gone.url}/v1`, "-p", "hi"],
      { OPENAI_API_KEY: "k-1234" },
    );
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toBe(
      `skillport: cannot reach the OpenAI-compatible server at ${gone.url}/v1: ECONNREFUSED\n`,
    );
  });

  // Issue 20 item 15: Ctrl-C killed the process before the box closed, leaving the temporary work folder behind.
  it("Ctrl-C during --code-exec cancels the run and removes the temporary work folder", async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "skillport-chat-sigint-"));
    let received = 0;
    const server = createServer((req) => {
      received++;
      req.resume(); // never answers: a hung server
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const child = spawn(
        process.execPath,
        [bin, "chat", skills.dir, "--model", "openai:m", "--base-url", url, "--code-exec", "-p", "hi"],
        {
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/", TMPDIR: tmp, OPENAI_API_KEY: "k-1234" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      for (let i = 0; i < 2000 && received === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(received).toBe(1);
      // The temporary folders code execution made before the model call (the skills' upload folder; a work dir is made
      // on first use: decision 0232).
      const made = () => readdirSync(tmp).filter((name) => /^skillport-(code-execution|skills)-/.test(name));
      expect(made().length).toBeGreaterThan(0);
      child.kill("SIGINT");
      expect(await exited).toBe(130);
      expect(stderr).toBe("skillport: cancelled\n");
      expect(made()).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("skillport tools prints what the model gets, per API", async () => {
    const openai = JSON.parse((await run(["tools", skills.dir])).stdout) as Array<{
      type: string;
      function: { name: string };
    }>;
    expect(openai.map((t) => t.function.name)).toEqual(["load_skill_through_path"]);
    const mcp = JSON.parse((await run(["tools", skills.dir, "--format", "mcp", "--code-exec", "--all"])).stdout) as {
      tools: Array<{ name: string; inputSchema: { $schema: string } }>;
    };
    expect(mcp.tools.map((t) => t.name)).toEqual([
      "load_skill_through_path",
      "search_skills",
      "execute_shell_command",
      "view_text_file",
      "list_directory",
      "write_text_file",
      "insert_text_file",
      "run_skill_script",
    ]);
    expect(mcp.tools[0]?.inputSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    const anthropic = JSON.parse((await run(["tools", skills.dir, "--format", "anthropic"])).stdout) as Array<{
      name: string;
      input_schema: { properties: { skillId: { enum: string[] } } };
    }>;
    expect(anthropic[0]?.input_schema.properties.skillId.enum).toEqual([
      expect.stringMatching(/^csv-report_fs:.*skillport-test-/),
    ]);
  });
});
