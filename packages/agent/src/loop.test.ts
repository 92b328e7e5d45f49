import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SkillRegistry } from "@skillport/core";
import { LocalFileSystemSkillProvider } from "@skillport/fs";
import { findBubblewrap } from "@skillport/sandbox";
import { tempTree, type TempTree } from "@skillport/testing";
import { startScriptedServer, type RecordedRequest, type ScriptedServer } from "../test/scripted-server.js";
import {
  AgentError,
  createAnthropicModel,
  createOpenAIChatModel,
  resultText,
  runAgent,
  SkillBox,
  type AgentEvent,
  type AgentMessage,
  type ModelClient,
} from "./index.js";

const hasBwrap = findBubblewrap() !== undefined;
if (!hasBwrap) {
  if (process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS)
    throw new Error("bwrap is required (SKILLPORT_REQUIRE_SYSTEM_DEPS is set)");
  console.log("skipping the sandboxed conversation: bwrap is not installed");
}

export const CSV_SKILL = {
  "csv-report/SKILL.md":
    "---\nname: csv-report\ndescription: Summarise CSV files. Use when the user asks about a CSV.\n---\n# CSV report\nRead references/columns.md, then run scripts/summary.py with the row count.\n",
  "csv-report/references/columns.md": "Columns: name, value.\n",
  "csv-report/scripts/summary.py": "import sys\nprint('rows:', sys.argv[1] if len(sys.argv) > 1 else 0)\n",
};

let tree: TempTree;
let registry: SkillRegistry;
beforeAll(async () => {
  tree = await tempTree(CSV_SKILL);
  registry = new SkillRegistry();
  await registry.addProvider(new LocalFileSystemSkillProvider(tree.dir, { name: "fs-skills" }), { watch: false });
});
afterAll(() => tree.cleanup());

const ID = "csv-report_fs-skills";
const models: Array<[string, (url: string) => ModelClient]> = [
  [
    "OpenAI Chat Completions, streaming",
    (url) =>
      createOpenAIChatModel({ model: "gpt-test", baseUrl: `${url}/v1`, apiKey: "sk-test-key-123", stream: true }),
  ],
  [
    "OpenAI Chat Completions, JSON",
    (url) =>
      createOpenAIChatModel({ model: "gpt-test", baseUrl: `${url}/v1`, apiKey: "sk-test-key-123", stream: false }),
  ],
  [
    "Anthropic Messages, streaming",
    (url) => createAnthropicModel({ model: "claude-test", baseUrl: url, apiKey: "sk-ant-test-123", stream: true }),
  ],
  [
    "Anthropic Messages, JSON",
    (url) => createAnthropicModel({ model: "claude-test", baseUrl: url, apiKey: "sk-ant-test-123", stream: false }),
  ],
];

describe.skipIf(!hasBwrap)(
  "runAgent against a scripted model server: list → load → resource → script in the sandbox → answer",
  () => {
    it.each(models)("%s", async (_label, makeModel) => {
      const box = new SkillBox({ registry });
      box.codeExecution().withShell().withRead().withSkillScripts().enable();
      const scriptPath = () => `${box.codeExecutionConfig?.uploadDir}/${ID}/scripts/summary.py`;
      const server = await startScriptedServer([
        { toolCalls: [{ name: "load_skill_through_path", arguments: { skillId: ID, path: "SKILL.md" } }] },
        {
          text: "Reading the columns.",
          toolCalls: [{ name: "load_skill_through_path", arguments: { skillId: ID, path: "references/columns.md" } }],
        },
        { toolCalls: [{ name: "run_skill_script", arguments: { skillId: ID, script: "summary.py", args: ["3"] } }] },
        () => ({
          toolCalls: [
            {
              name: "execute_shell_command",
              arguments: { command: `python3 ${scriptPath()} 4 && python3 -c "print(open('/etc/shadow').read())"` },
            },
          ],
        }),
        { text: "The CSV has 3 rows." },
      ]);
      const events: AgentEvent[] = [];
      try {
        const result = await runAgent({
          model: makeModel(server.url),
          box,
          messages: "Summarise data.csv",
          system: "Be brief.",
          onEvent: (e) => events.push(e),
        });
        expect(result.stopReason).toBe("end");
        expect(result.text).toBe("The CSV has 3 rows.");
        expect(result.steps).toBe(5);
        expect(result.usage).toEqual({ inputTokens: 50, outputTokens: 25 });
        const [first, second, third, fourth, fifth] = server.requests as [
          RecordedRequest,
          RecordedRequest,
          RecordedRequest,
          RecordedRequest,
          RecordedRequest,
        ];
        // Tool list before activation: no skill-bound tool; the enum lists the skill.
        expect(first.toolNames).toEqual([
          "load_skill_through_path",
          "execute_shell_command",
          "view_text_file",
          "list_directory",
        ]);
        const load = first.tools[0] as Record<string, unknown>;
        const schema = (
          first.protocol === "openai" ? (load.function as { parameters: unknown }).parameters : load.input_schema
        ) as { properties: { skillId: { enum: string[] } }; $schema?: string };
        expect(schema.properties.skillId.enum).toEqual([ID]);
        expect(schema.$schema).toBeUndefined();
        expect(first.system).toMatch(/^Be brief\.\n\n## Available Skills/);
        expect(first.system).toContain(`<skill-id>${ID}</skill-id>`);
        expect(first.system).toContain("## Code Execution");
        // After activation the skill's tool group is on.
        expect(second.toolResults[0]).toContain(`Successfully loaded skill ${ID}.`);
        expect(second.toolResults[0]).toContain("===== SKILL.md =====\n# CSV report");
        expect(third.toolNames).toEqual([
          "load_skill_through_path",
          "execute_shell_command",
          "view_text_file",
          "list_directory",
          "run_skill_script",
        ]);
        expect(third.toolResults).toEqual([
          `Successfully loaded resource references/columns.md of skill ${ID}.\n\nColumns: name, value.\n`,
        ]);
        expect(fourth.toolResults).toEqual(["<returncode>0</returncode><stdout>rows: 3\n</stdout><stderr></stderr>"]);
        // The shell ran in bubblewrap: the script printed, /etc/shadow was not there to read.
        expect(fifth.toolResults[0]).toMatch(
          /^<returncode>1<\/returncode><stdout>rows: 4\n<\/stdout><stderr>[\s\S]*(FileNotFoundError|PermissionError)/,
        );
        const shell = result.messages.find(
          (m): m is Extract<AgentMessage, { role: "tool" }> => m.role === "tool" && m.name === "execute_shell_command",
        );
        expect(shell?.result.details).toMatchObject({ sandbox: "bubblewrap", isolates: true });
        expect(
          events.filter((e) => e.type === "tool_call").map((e) => (e.type === "tool_call" ? e.call.name : "")),
        ).toEqual(["load_skill_through_path", "load_skill_through_path", "run_skill_script", "execute_shell_command"]);
        if (first.stream) expect(events.filter((e) => e.type === "text").length).toBeGreaterThan(1);
        // Keys travel only in their header.
        expect(first.headers[first.protocol === "openai" ? "authorization" : "x-api-key"]).toMatch(/test/);
      } finally {
        await server.close();
        await box.close();
      }
    });
  },
);

describe("runAgent's edges", () => {
  const box = () => new SkillBox({ registry });
  const openai = (url: string, extra = {}) =>
    createOpenAIChatModel({ model: "m", baseUrl: `${url}/v1`, apiKey: "sk-secret-value", retryBaseMs: 1, ...extra });

  it("retries 429 and 5xx honouring Retry-After, then goes on", async () => {
    const server = await startScriptedServer([
      { status: 429, headers: { "retry-after": "1" } },
      { status: 529, headers: { "retry-after-ms": "20" } },
      { text: "done" },
    ]);
    const retries: number[] = [];
    try {
      const result = await runAgent({
        model: openai(server.url),
        box: box(),
        messages: "hi",
        onEvent: (e) => e.type === "retry" && retries.push(e.retry.delayMs),
      });
      expect(result.text).toBe("done");
      expect(retries).toEqual([1000, 20]);
    } finally {
      await server.close();
    }
  });

  it.each([["openai"], ["anthropic"]] as const)(
    "%s: malformed tool-call JSON goes back to the model as an error it can correct",
    async (protocol) => {
      const server = await startScriptedServer([
        { toolCalls: [{ name: "load_skill_through_path", arguments: '{"skillId": "csv' }] },
        { text: "sorry" },
      ]);
      try {
        const model =
          protocol === "openai"
            ? openai(server.url)
            : createAnthropicModel({ model: "c", baseUrl: server.url, apiKey: "k-123", stream: true });
        const result = await runAgent({ model, box: box(), messages: "hi" });
        expect(result.text).toBe("sorry");
        expect(server.requests[1]?.toolResults[0]).toMatch(
          /^Error: load_skill_through_path: the arguments are not valid JSON .*Call the tool again with a JSON object of arguments\.$/,
        );
      } finally {
        await server.close();
      }
    },
  );

  it("stops at the step limit", async () => {
    const call = { toolCalls: [{ name: "load_skill_through_path", arguments: { skillId: ID, path: "SKILL.md" } }] };
    const server = await startScriptedServer([call, call, call]);
    try {
      const result = await runAgent({ model: openai(server.url), box: box(), messages: "hi", maxSteps: 2 });
      expect([result.stopReason, result.steps, server.requests.length]).toEqual(["max_steps", 2, 2]);
    } finally {
      await server.close();
    }
  });

  it("stops when cancelled", async () => {
    const controller = new AbortController();
    const server = await startScriptedServer([
      { toolCalls: [{ name: "load_skill_through_path", arguments: { skillId: ID, path: "SKILL.md" } }] },
      { text: "never" },
    ]);
    try {
      const result = await runAgent({
        model: openai(server.url),
        box: box(),
        messages: "hi",
        signal: controller.signal,
        onEvent: (e) => e.type === "tool_result" && controller.abort(),
      });
      expect([result.stopReason, server.requests.length]).toEqual(["aborted", 1]);
    } finally {
      await server.close();
    }
  });

  it("a missing key, an unreachable server and a refused key are AgentErrors that never show the key", async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      expect(() => createOpenAIChatModel({ model: "m" })).toThrow(
        expect.objectContaining({ code: "MODEL_AUTH", message: expect.stringContaining("OPENAI_API_KEY is not set") }),
      );
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
    const closed = await startScriptedServer([]);
    await closed.close();
    await expect(
      runAgent({ model: openai(closed.url, { maxRetries: 1 }), box: box(), messages: "hi" }),
    ).rejects.toMatchObject({ code: "MODEL_UNREACHABLE", message: expect.stringContaining("ECONNREFUSED") });
    const server = await startScriptedServer([
      { status: 401, body: JSON.stringify({ error: { message: "bad key sk-secret-value" } }) },
    ]);
    try {
      const error = (await runAgent({ model: openai(server.url), box: box(), messages: "hi" }).catch(
        (e: unknown) => e,
      )) as AgentError;
      expect(error).toBeInstanceOf(AgentError);
      expect(error.code).toBe("MODEL_AUTH");
      expect(error.message).toBe(
        "the OpenAI-compatible server at " + server.url + "/v1 answered HTTP 401: bad key [redacted]",
      );
    } finally {
      await server.close();
    }
  });

  // Issue 20 item 15: a wrong base URL that reaches a web UI answered 200 with a page; streaming read no events and
  // returned an empty answer.
  it.each(models)(
    "%s: a 200 reply that is a web page is a clear MODEL_PROTOCOL error, not an empty answer",
    async (_label, makeModel) => {
      const page = {
        status: 200,
        headers: { "content-type": "text/html; charset=utf-8" },
        body: "<!doctype html><html><body>Web UI</body></html>",
      };
      const server = await startScriptedServer([page]);
      try {
        await expect(runAgent({ model: makeModel(server.url), box: box(), messages: "hi" })).rejects.toMatchObject({
          code: "MODEL_PROTOCOL",
          message: expect.stringMatching(
            /answered with a web page \(text\/html\), not an API reply: check the base URL$/,
          ),
        });
      } finally {
        await server.close();
      }
    },
  );

  it.each(models.filter(([label]) => label.includes("streaming")))(
    "%s: a stream without a single event is an error",
    async (_label, makeModel) => {
      const server = await startScriptedServer([
        { status: 200, headers: { "content-type": "text/plain" }, body: "not an event stream" },
      ]);
      try {
        await expect(runAgent({ model: makeModel(server.url), box: box(), messages: "hi" })).rejects.toMatchObject({
          code: "MODEL_PROTOCOL",
          message: expect.stringContaining("sent an empty stream"),
        });
      } finally {
        await server.close();
      }
    },
  );

  it.each(["localhost:8080/v1", "127.0.0.1:11434", "ftp://host/v1", "not a url"])(
    "a base URL without http(s):// (%j) is refused at once",
    (baseUrl) => {
      const message = `base URL ${JSON.stringify(baseUrl)} must start with http:// or https://`;
      expect(() => createOpenAIChatModel({ model: "m", apiKey: "k", baseUrl })).toThrow(
        expect.objectContaining({ code: "AGENT_CONFIG", message }),
      );
      expect(() => createAnthropicModel({ model: "m", apiKey: "k", baseUrl })).toThrow(
        expect.objectContaining({ code: "AGENT_CONFIG", message }),
      );
    },
  );

  it("tool results keep images for Anthropic and summarise them for OpenAI", async () => {
    const { toAnthropicToolResult, toOpenAIChatToolMessage } = await import("./index.js");
    const result = {
      content: [
        { type: "text" as const, text: "see" },
        { type: "image" as const, mimeType: "image/png", data: "AAAA" },
      ],
      isError: false,
    };
    expect(toAnthropicToolResult("t1", result)).toEqual({
      type: "tool_result",
      tool_use_id: "t1",
      content: [
        { type: "text", text: "see" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
      ],
    });
    expect(toOpenAIChatToolMessage("c1", result)).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: "see\n[image image/png, 3 bytes]",
    });
    expect(resultText({ content: [{ type: "json", value: { a: 1 } }], isError: false })).toBe('{"a":1}');
  });
});

export type { ScriptedServer };
