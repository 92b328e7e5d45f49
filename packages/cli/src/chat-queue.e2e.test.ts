// `chat --code-exec --queue` and `mcp --queue`: the model's commands and a skill's script run as jobs on a runner pool
// (decision 0440).
// The BUILT CLI (packages/cli/dist/cli.js) as the chat and as one runner process, a private nats-server on a free
// port with its own store, the runner's working folders kept in PostgreSQL on 127.0.0.1, a scripted model server.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect as connectTcp } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBubblewrap } from "@skillport/sandbox";
import { freePort, tempTree, type TempTree } from "@skillport/testing";
import { startScriptedServer } from "../../agent/test/scripted-server.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = path.join(repo, "packages/cli/dist/cli.js");
const PG = process.env.SKILLPORT_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const built = existsSync(path.join(repo, "packages/cli/dist/commands/chat.js"));
const hasNats = (process.env.PATH ?? "")
  .split(":")
  .some((dir) => dir !== "" && existsSync(path.join(dir, "nats-server")));
const ready = built && hasNats && findBubblewrap() !== undefined;
if (!ready && process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS)
  throw new Error("chat --queue e2e needs the built CLI (npm run build), nats-server and bwrap");

const children: ChildProcess[] = [];
let tmp: string;
let skills: TempTree;
let natsUrl: string;
let events: Array<{ type: string; id?: string; tenant?: string }> = [];

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

const run = async (args: string[], env: Record<string, string> = {}) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/", ...env },
      timeout: 90_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
};

beforeAll(async () => {
  if (!ready) return;
  tmp = mkdtempSync(path.join(os.tmpdir(), "chat-queue-e2e-"));
  skills = await tempTree({
    "csv-report/SKILL.md":
      "---\nname: csv-report\ndescription: Summarise CSV files. Use when the user asks about a CSV.\n---\n# CSV report\nRun scripts/summary.py with the row count.\n",
    "csv-report/scripts/summary.py":
      "import sys, os\nfrom helper import label\nprint(label(), sys.argv[1], 'cwd has note:', os.path.exists('note.txt'))\n",
    "csv-report/scripts/helper.py": "def label():\n    return 'rows:'\n",
  });
  const port = await freePort();
  natsUrl = `nats://127.0.0.1:${port}`;
  children.push(
    spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", path.join(tmp, "nats")], {
      stdio: "ignore",
    }),
  );
  for (let i = 0; i < 100 && !(await canConnect(port)); i++) await new Promise((r) => setTimeout(r, 100));
  const runner = spawn(
    process.execPath,
    [bin, "runner", "--queue", natsUrl, "--cache", path.join(tmp, "cache"), "--sessions", PG, "--events"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  children.push(runner);
  let buffer = "";
  await new Promise<void>((resolve, reject) => {
    runner.once("exit", (code) => reject(new Error(`the runner exited (${code}): ${buffer}`)));
    runner.stderr!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.startsWith("{")) events.push(JSON.parse(line) as (typeof events)[number]);
        else if (line.includes("taking jobs")) resolve();
      }
    });
  });
}, 60_000);

afterAll(async () => {
  for (const c of children.reverse()) if (c.exitCode === null) c.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 300));
  if (ready) {
    await skills.cleanup();
    rmSync(tmp, { recursive: true, force: true });
  }
});

type Transcript = {
  messages: Array<{
    role: string;
    name?: string;
    result?: { content: Array<{ text: string }>; isError?: boolean; details?: { sandbox?: string } };
  }>;
};

describe.skipIf(!ready)("skillport chat --code-exec --queue (built CLI, nats-server, a runner process)", () => {
  it("commands and a skill's script run on the pool; the conversation's working folder is kept between calls", async () => {
    events = [];
    const server = await startScriptedServer([
      {
        toolCalls: [
          {
            name: "execute_shell_command",
            arguments: { command: "python3 -c \"open('note.txt','w').write('kept')\"" },
          },
        ],
      },
      { toolCalls: [{ name: "load_skill_through_path", arguments: { skillId: "csv-report", path: "SKILL.md" } }] },
      {
        toolCalls: [
          {
            name: "run_skill_script",
            arguments: { skillId: "csv-report", script: "summary.py", args: ["7 'quoted'"] },
          },
        ],
      },
      {
        toolCalls: [
          { name: "execute_shell_command", arguments: { command: "python3 -c \"print(open('note.txt').read())\"" } },
        ],
      },
      { text: "done" },
    ]);
    try {
      const result = await run(
        [
          "chat",
          skills.dir,
          "--model",
          "openai:gpt-test",
          "--base-url",
          `${server.url}/v1`,
          "-p",
          "go",
          "--json",
          "--code-exec",
          "--queue",
          natsUrl,
          "--tenant",
          "chat",
        ],
        { OPENAI_API_KEY: "sk-e2e-key" },
      );
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const transcript = JSON.parse(result.stdout) as Transcript;
      const tools = transcript.messages.filter((m) => m.role === "tool");
      const texts = tools.map((m) => m.result?.content[0]?.text);
      expect(texts[0]).toBe("<returncode>0</returncode><stdout></stdout><stderr></stderr>");
      // The script and its neighbour travelled with the job; the argument arrived as one word; it ran in the
      // conversation's working folder, where the first command left its file.
      expect(texts[2]).toBe(
        "<returncode>0</returncode><stdout>rows: 7 'quoted' cwd has note: True\n</stdout><stderr></stderr>",
      );
      expect(texts[3]).toBe("<returncode>0</returncode><stdout>kept\n</stdout><stderr></stderr>");
      expect(tools[0]?.result?.details?.sandbox).toMatch(/^queue runner \S+ \(bubblewrap\)$/);
      // Only the tools that work remotely are offered: no file tools on a folder the jobs never see.
      expect(server.requests[0]?.toolNames).toContain("execute_shell_command");
      expect(server.requests[0]?.toolNames).not.toContain("write_text_file");
      expect(server.requests[0]?.system).not.toContain("copied to a folder");
      const started = events.filter((e) => e.type === "started");
      expect(started.map((e) => e.tenant)).toEqual(["chat", "chat", "chat"]);
    } finally {
      await server.close();
    }
  }, 120_000);

  it("an unreachable pool is a tool error the model sees, not a crash; --queue without --code-exec is refused", async () => {
    const server = await startScriptedServer([
      { toolCalls: [{ name: "execute_shell_command", arguments: { command: "python3 -c 1" } }] },
      { text: "no pool" },
    ]);
    try {
      const port = await freePort();
      const result = await run(
        [
          "chat",
          skills.dir,
          "--model",
          "openai:gpt-test",
          "--base-url",
          `${server.url}/v1`,
          "-p",
          "go",
          "--json",
          "--code-exec",
          "--queue",
          `nats://127.0.0.1:${port}`,
        ],
        { OPENAI_API_KEY: "sk-e2e-key" },
      );
      expect(result.code).toBe(0);
      const tool = (JSON.parse(result.stdout) as Transcript).messages.find((m) => m.role === "tool");
      expect(tool?.result?.isError).toBe(true);
      expect(tool?.result?.content[0]?.text).toMatch(
        /could not be run: cannot reach the queue at nats:\/\/127\.0\.0\.1/,
      );
    } finally {
      await server.close();
    }
    const refused = await run(["chat", skills.dir, "--model", "openai:m", "-p", "hi", "--queue", natsUrl], {
      OPENAI_API_KEY: "k",
    });
    expect([refused.code, refused.stderr]).toEqual([
      2,
      "skillport: --queue needs --code-exec: it says where the model's commands run\n",
    ]);
  }, 60_000);

  it("mcp --queue: run_skill_script in the tool fallback runs a served skill's script on the pool", async () => {
    events = [];
    const child = spawn(process.execPath, [bin, "mcp", skills.dir, "--queue", natsUrl, "--tenant", "mcp"], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/" },
      stdio: ["pipe", "pipe", "ignore"],
    });
    children.push(child);
    const answers = new Map<number, (value: Record<string, unknown>) => void>();
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const message = JSON.parse(buffer.slice(0, nl)) as { id?: number };
        buffer = buffer.slice(nl + 1);
        if (message.id !== undefined) answers.get(message.id)?.(message);
      }
    });
    let next = 1;
    const call = (method: string, params: unknown) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const id = next++;
        answers.set(id, resolve);
        child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      });
    await call("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "e2e", version: "1" },
    });
    child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const list = (await call("tools/list", {})) as { result: { tools: Array<{ name: string }> } };
    expect(list.result.tools.map((t) => t.name)).toContain("run_skill_script");
    const answer = (await call("tools/call", {
      name: "run_skill_script",
      arguments: { skillId: "csv-report", script: "summary.py", args: ["3"] },
    })) as { result: { content: Array<{ text: string }>; isError?: boolean } };
    expect(answer.result.content[0]?.text).toBe(
      "<returncode>0</returncode><stdout>rows: 3 cwd has note: False\n</stdout><stderr></stderr>",
    );
    expect(answer.result.isError).toBe(false);
    expect(events.filter((e) => e.type === "started").map((e) => e.tenant)).toEqual(["mcp"]);
    child.stdin!.end();
  }, 60_000);
});
