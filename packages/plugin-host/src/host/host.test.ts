import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PluginHost, type PluginEvent } from "./index.js";
import { findBubblewrap } from "@skillport/sandbox";
import { createLocalServices } from "./services.js";
import {
  BROKEN_SOURCE,
  CALLER_SOURCE,
  HANG_AT_IMPORT_SOURCE,
  KITCHEN_SINK_CHILDREN,
  KITCHEN_SINK_SOURCE,
  UPLOADER_SOURCE,
  collectEvents as collect,
  hostOpener,
  writePluginFixture,
} from "./__fixtures__/plugins.js";

const bwrap = await findBubblewrap();
if (!bwrap) {
  if (process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS)
    throw new Error("bwrap is required (SKILLPORT_REQUIRE_SYSTEM_DEPS is set) but does not work here");
  console.log("skipping bubblewrap-only host tests: bwrap is not installed or cannot create namespaces");
}

let root: string;
let dist: string;
let uploads: string;

const { open, closeAll } = hostOpener();

async function lastEvent(
  host: PluginHost,
  tool: string,
  input: unknown,
  secrets?: Record<string, unknown>,
): Promise<PluginEvent> {
  const events = await collect(host.run(tool, input, { secrets }));
  return events[events.length - 1] as PluginEvent;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skillport-host-test-"));
  uploads = join(root, "uploads");
  dist = await writePluginFixture(join(root, "sink"), {
    children: KITCHEN_SINK_CHILDREN,
    permission: ["file-upload:allow"],
    source: KITCHEN_SINK_SOURCE,
  });
});

afterAll(async () => {
  await closeAll();
  await rm(root, { recursive: true, force: true });
});

describe("PluginHost", () => {
  let host: PluginHost;
  beforeAll(async () => {
    host = await open(dist, { services: createLocalServices({ uploadDir: uploads }) });
  });

  it("streams events in order, then the validated response", async () => {
    expect(await collect(host.run("echo", { text: "hi" }))).toEqual([
      { type: "stream", data: { type: "answer", content: "one" } },
      { type: "stream", data: { type: "fastAnswer", content: "two" } },
      { type: "response", data: { text: "hi" } },
    ]);
  });

  it("reports the sandbox it really runs in", () => {
    expect(host.status).toEqual({
      permissionModel: true,
      bubblewrap: bwrap !== undefined,
      networkIsolated: bwrap !== undefined,
      maxHeapMb: 64,
    });
  });

  it("rejects invalid input before the handler runs, naming the field and the tool", async () => {
    expect(await lastEvent(host, "echo", { text: "" })).toEqual({
      type: "error",
      code: "PLUGIN_INPUT_INVALID",
      data: 'tool "echo" of plugin "fixture": input field "text": Too small: expected string to have >=1 characters',
    });
  });

  it("returns output that does not match the output schema after a warning (upstream returns it as is)", async () => {
    const events = await collect(host.run("badOutput", { text: "x" }));
    expect(events).toEqual([
      {
        type: "warning",
        code: "PLUGIN_OUTPUT_INVALID",
        data: 'tool "badOutput" of plugin "fixture": the output does not match outputSchema: output field "text": Invalid input: expected string, received number',
      },
      { type: "response", data: { text: 42 } },
    ]);
  });

  it("rejects output that does not match the output schema when the host is strict", async () => {
    const strict = await open(dist, { strictOutput: true });
    const event = await lastEvent(strict, "badOutput", { text: "x" });
    expect(event).toMatchObject({ type: "error", code: "PLUGIN_OUTPUT_INVALID" });
    expect(event.data).toBe(
      'tool "badOutput" of plugin "fixture": output field "text": Invalid input: expected string, received number',
    );
  });

  it("checks secrets against the secret schema, naming the field", async () => {
    expect(await lastEvent(host, "echo", { text: "x" }, { apiKey: 42 })).toEqual({
      type: "error",
      code: "PLUGIN_SECRETS_INVALID",
      data: 'tool "echo" of plugin "fixture": secret field "apiKey": Invalid input: expected string, received number',
    });
  });

  it("names the known tools when asked for an unknown one", async () => {
    const event = await lastEvent(host, "nope", { text: "x" });
    expect(event).toMatchObject({ type: "error", code: "PLUGIN_TOOL_NOT_FOUND" });
    expect(event.data).toContain('"echo", "badOutput"');
  });

  it("kills a call that hangs at the timeout, and the pool serves the next call", async () => {
    const hangHost = await open(dist, { pool: { callTimeoutMs: 1500, maxWorkers: 1 } });
    await hangHost.invoke("echo", { text: "warm" });
    expect(await lastEvent(hangHost, "hang", { text: "x" })).toEqual({
      type: "error",
      code: "PLUGIN_TIMEOUT",
      data: 'tool "hang" of plugin "fixture": did not finish within 1500 ms; its worker was stopped',
    });
    expect(hangHost.stats()).toMatchObject({ workers: 0, workersStarted: 1 });
    expect(await lastEvent(hangHost, "echo", { text: "after" })).toEqual({ type: "response", data: { text: "after" } });
    expect(hangHost.stats()).toMatchObject({ workers: 1, workersStarted: 2 });
  });

  it("stops a worker that allocates without bound at the heap cap", async () => {
    // Its own host: V8 fights for memory before giving up, which must not race the short call timeout above.
    const hogHost = await open(dist, { maxHeapMb: 48 });
    expect(await lastEvent(hogHost, "hog", { text: "x" })).toEqual({
      type: "error",
      code: "PLUGIN_HEAP_LIMIT",
      data: 'tool "hog" of plugin "fixture": the worker ran out of memory (heap limit 48 MB) and was stopped',
    });
    expect(await lastEvent(hogHost, "echo", { text: "still here" })).toEqual({
      type: "response",
      data: { text: "still here" },
    });
  });

  it.each([
    ["readPasswd", "read a file outside the plugin package (FileSystemRead)"],
    ["writeOutside", "write a file outside its temp directory (FileSystemWrite)"],
    ["spawn", "start a child process (ChildProcess)"],
    ["thread", "start a worker thread (WorkerThreads)"],
    ["addon", "load a native addon (Addons)"],
  ])("refuses %s with a clear error", async (tool, action) => {
    expect(await lastEvent(host, tool, { text: "x" })).toEqual({
      type: "error",
      code: "PLUGIN_SANDBOX_DENIED",
      data: `tool "${tool}" of plugin "fixture": the plugin sandbox refused to let the tool ${action}`,
    });
  });

  it("survives junk and forged IPC messages from plugin code", async () => {
    expect(await lastEvent(host, "forge", { text: "x" })).toEqual({ type: "response", data: { text: "survived" } });
    expect(await lastEvent(host, "echo", { text: "fine" })).toEqual({ type: "response", data: { text: "fine" } });
  });

  it("lets a tool write and read its own temp dir", async () => {
    expect(await lastEvent(host, "writeTemp", { text: "scratch" })).toEqual({
      type: "response",
      data: { text: "scratch" },
    });
  });

  it("redacts secret values from error text, stream events and the response", async () => {
    const events = await collect(host.run("leak", { text: "x" }, { secrets: { apiKey: "sk-live-123456" } }));
    expect(events).toEqual([
      { type: "stream", data: { type: "answer", content: "using key [redacted]" } },
      {
        type: "error",
        code: "PLUGIN_HANDLER_ERROR",
        data: 'tool "leak" of plugin "fixture": upstream rejected key [redacted] (401)',
      },
    ]);
    // The response is redacted too: echo returns its input, which here carries the secret.
    expect(
      await collect(host.run("echo", { text: "key=sk-live-123456" }, { secrets: { apiKey: "sk-live-123456" } })),
    ).toEqual([
      { type: "stream", data: { type: "answer", content: "one" } },
      { type: "stream", data: { type: "fastAnswer", content: "two" } },
      { type: "response", data: { text: "key=[redacted]" } },
    ]);
  });

  it("uploads through the host when the manifest allows it", async () => {
    const { output } = await host.invoke("upload", { text: "hello" });
    const result = JSON.parse((output as { text: string }).text) as { accessURL: string; size: number; etag: string };
    const etag = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
    expect(result).toEqual({
      accessURL: expect.stringMatching(/^file:\/\/.*\/hello\.txt$/),
      fileName: "hello.txt",
      contentType: "text/plain",
      size: 5,
      etag,
      createTime: expect.any(String),
    });
    expect(await readFile(fileURLToPath(result.accessURL), "utf8")).toBe("hello");
    expect(await readdir(join(uploads, etag.slice(0, 16)))).toEqual(["hello.txt"]);
  });

  it("describes its tools neutrally and executes them", async () => {
    const tools = host.tools();
    expect(tools.map((tool) => tool.name)).toEqual(KITCHEN_SINK_CHILDREN.map((id) => `fixture__${id}`));
    const echo = tools[0];
    expect(echo).toMatchObject({
      id: "echo",
      description: "Runs echo",
      inputSchema: { type: "object", required: ["text"] },
    });
    const streamed: string[] = [];
    expect(await echo?.execute({ text: "neutral" }, { onStream: (event) => streamed.push(event.content) })).toEqual({
      text: "neutral",
    });
    expect(streamed).toEqual(["one", "two"]);
  });

  it("identifies the package by id, version and content hash", () => {
    expect(host.identity).toEqual({
      pluginId: "fixture",
      version: "1.0.0",
      hash: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
  });
});

describe("without bubblewrap", () => {
  it("says the network is not isolated, and the permission model still confines files and processes", async () => {
    const host = await open(dist, { bubblewrap: "off" });
    expect(host.status).toEqual({ permissionModel: true, bubblewrap: false, networkIsolated: false, maxHeapMb: 64 });
    expect(await lastEvent(host, "readPasswd", { text: "x" })).toMatchObject({ code: "PLUGIN_SANDBOX_DENIED" });
    expect(await lastEvent(host, "spawn", { text: "x" })).toMatchObject({ code: "PLUGIN_SANDBOX_DENIED" });
    expect(await lastEvent(host, "echo", { text: "plain" })).toEqual({ type: "response", data: { text: "plain" } });
  });
});

describe("reverse-call limits", () => {
  it("answers reverse calls beyond the per-call limit with a LimitExceeded failure", async () => {
    const host = await open(dist, {
      services: createLocalServices({ uploadDir: uploads }),
      pool: { maxInvokesPerCall: 0 },
    });
    const { output } = await host.invoke("upload", { text: "hello" });
    expect(JSON.parse((output as { text: string }).text)).toMatchObject({
      error: "LimitExceeded",
      message: "ctx.invoke.uploadFile: more than 0 reverse calls in one run",
    });
  });
});

describe("reverse-call permissions", () => {
  it("refuses uploadFile without file-upload:allow, naming the permission", async () => {
    const dir = await writePluginFixture(join(root, "uploader"), { pluginId: "uploader", source: UPLOADER_SOURCE });
    const host = await open(dir, { services: createLocalServices({ uploadDir: uploads }) });
    const { output } = await host.invoke("tool", { text: "hello" });
    expect(JSON.parse((output as { text: string }).text)).toEqual({
      reason: {
        en: 'ctx.invoke.uploadFile needs the "file-upload:allow" permission; add it to manifest.permission',
        "zh-CN": 'ctx.invoke.uploadFile 需要 "file-upload:allow" 权限，请在 manifest.permission 中声明',
      },
      error: "PermissionDenied",
      code: "PERMISSION_DENIED",
      data: { permission: "file-upload:allow" },
    });
  });
});

describe("reverse calls end to end (ctx.invoke.* through the worker)", () => {
  const ALL = ["userInfo:read", "teamInfo:read", "model:read", "dataset:read", "file-upload:allow"];
  const systemVar = {
    app: { id: "app-7", name: "Demo app" },
    chat: { chatId: "chat-9", uid: "u-1" },
    invokeToken: "tok-abcdef",
    time: "2026-01-01T00:00:00.000Z",
  };
  type Tuple = [unknown, null] | [null, { error: string; data?: unknown; reason: { en: string; "zh-CN": string } }];
  async function callAll(permission: string[], services: Parameters<typeof createLocalServices>[0] | undefined) {
    const dir = await writePluginFixture(join(root, `caller-${permission.length}-${services ? "svc" : "none"}`), {
      pluginId: "caller",
      permission,
      source: CALLER_SOURCE,
    });
    const host = await open(dir, services ? { services: createLocalServices(services) } : {});
    const { output } = await host.invoke("tool", { text: "hello" }, { systemVar });
    return JSON.parse((output as { text: string }).text) as { results: Record<string, Tuple>; systemVar: unknown };
  }

  it("answers every call from the application's services, with the caller's systemVar", async () => {
    const seen: unknown[] = [];
    const got = await callAll(ALL, {
      uploadDir: join(root, "caller-uploads"),
      user: { username: "ada", orgs: [{ pathId: "o1", name: "eng" }], groups: [{ name: "g" }] },
      team: { teamId: "t-1", name: "Team" },
      model: (request, call) => {
        seen.push(call);
        return { model: "echo-1", content: `echo: ${request.messages[0]?.content ?? ""}` };
      },
      dataset: (request) => ({
        items: [{ id: "d1", datasetId: request.datasetIds[0] ?? "", content: request.query, score: 0.9 }],
      }),
      wecomCorpToken: () => ({ access_token: "corp-token", expires_in: 7200 }),
    });
    expect(got.systemVar).toEqual(systemVar);
    const etag = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
    expect(got.results).toEqual({
      userInfo: [{ username: "ada", orgs: [{ pathId: "o1", name: "eng" }], groups: [{ name: "g" }] }, null],
      teamInfo: [{ teamId: "t-1", name: "Team" }, null],
      model: [{ model: "echo-1", content: "echo: hello" }, null],
      dataset: [{ items: [{ id: "d1", datasetId: "kb-1", content: "hello", score: 0.9 }] }, null],
      uploadFile: [
        {
          accessURL: expect.stringMatching(/^file:\/\/.*\/note\.txt$/),
          fileName: "note.txt",
          contentType: "application/octet-stream",
          size: 5,
          etag,
          createTime: expect.any(String),
        },
        null,
      ],
      badArguments: [
        null,
        expect.objectContaining({
          error: "InvalidArgument",
          message: "ctx.invoke.model: invalid arguments (messages): Too small: expected array to have >=1 items",
        }),
      ],
      getWecomCorpToken: [{ access_token: "corp-token", expires_in: 7200 }, null],
    });
    expect(seen).toEqual([{ pluginId: "caller", version: "1.0.0", toolId: "tool", systemVar }]);
  });

  it("refuses every call whose permission the manifest lacks, naming it in English and Chinese", async () => {
    const got = await callAll([], { user: { username: "ada", orgs: [], groups: [] } });
    const expected = {
      userInfo: "userInfo:read",
      teamInfo: "teamInfo:read",
      model: "model:read",
      dataset: "dataset:read",
      uploadFile: "file-upload:allow",
      badArguments: "model:read",
      getWecomCorpToken: "teamInfo:read",
    };
    for (const [call, permission] of Object.entries(expected)) {
      const [value, failure] = got.results[call] ?? [];
      expect(value).toBeNull();
      expect(failure).toMatchObject({ error: "PermissionDenied", data: { permission } });
      expect(failure?.reason.en).toContain(`"${permission}"`);
      expect(failure?.reason["zh-CN"]).toContain(`"${permission}"`);
    }
  });

  it("answers NotConfigured when the application supplies no service", async () => {
    const got = await callAll(ALL, undefined);
    for (const call of ["userInfo", "teamInfo", "model", "dataset", "uploadFile"]) {
      expect(got.results[call]).toEqual([
        null,
        {
          reason: { en: `ctx.invoke.${call} is not configured on this host`, "zh-CN": `宿主未配置 ctx.invoke.${call}` },
          error: "NotConfigured",
          message: `ctx.invoke.${call} is not configured on this host`,
        },
      ]);
    }
  });
});

describe.runIf(bwrap)("network isolation (bubblewrap)", () => {
  let server: Server;
  let port: number;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("refuses network connections by default", async () => {
    const host = await open(dist);
    const event = await lastEvent(host, "connect", { text: "x", port });
    expect(event).toMatchObject({ type: "error", code: "PLUGIN_HANDLER_ERROR" });
    expect(event.data).toMatch(/connect failed: (ENETUNREACH|ECONNREFUSED)/);
    expect(connections).toBe(0);
  });

  it("connects when the host allows the network", async () => {
    const host = await open(dist, { allowNetwork: true });
    expect(host.status.networkIsolated).toBe(false);
    expect(await lastEvent(host, "connect", { text: "x", port })).toEqual({
      type: "response",
      data: { text: "connected" },
    });
    // The worker's answer and the server's accept reach this process on different sockets, in either order.
    await vi.waitFor(() => expect(connections).toBe(1));
  });
});

describe("pool policy", () => {
  it("recycles a worker after N calls", async () => {
    const host = await open(dist, { pool: { recycleAfterCalls: 2, maxWorkers: 1 } });
    const counts: string[] = [];
    for (let i = 0; i < 5; i++)
      counts.push(((await host.invoke("counter", { text: "x" })).output as { text: string }).text);
    // Module state starts over in each new worker: 1, 2 | 1, 2 | 1
    expect(counts).toEqual(["1", "2", "1", "2", "1"]);
    expect(host.stats().workersStarted).toBe(3);
  });

  it("refuses calls beyond the queue bound with a clear error", async () => {
    const host = await open(dist, { pool: { maxWorkers: 1, maxConcurrentPerWorker: 1, maxQueue: 1 } });
    await host.invoke("echo", { text: "warm" });
    const running = collect(host.run("slow", { text: "x", ms: 300 }));
    const queued = collect(host.run("echo", { text: "queued" }));
    expect(await lastEvent(host, "echo", { text: "over" })).toEqual({
      type: "error",
      code: "PLUGIN_QUEUE_FULL",
      data: 'tool "echo" of plugin "fixture": too many calls waiting (queue limit 1)',
    });
    expect((await running).at(-1)).toEqual({ type: "response", data: { text: "slept" } });
    expect((await queued).at(-1)).toEqual({ type: "response", data: { text: "queued" } });
  });

  it("refuses a call that waited too long for a worker", async () => {
    const host = await open(dist, { pool: { maxWorkers: 1, maxConcurrentPerWorker: 1, queueTimeoutMs: 100 } });
    await host.warmUp(); // a cold start would itself wait longer than the queue allows
    const running = collect(host.run("slow", { text: "x", ms: 600 }));
    expect(await lastEvent(host, "echo", { text: "late" })).toEqual({
      type: "error",
      code: "PLUGIN_QUEUE_TIMEOUT",
      data: 'tool "echo" of plugin "fixture": no worker became free within 100 ms',
    });
    expect((await running).at(-1)).toEqual({ type: "response", data: { text: "slept" } });
  });

  it("gives up on a worker that does not become ready in time", async () => {
    const dir = await writePluginFixture(join(root, "stuck"), { pluginId: "fixture", source: HANG_AT_IMPORT_SOURCE });
    const host = await open(dir, { readyTimeoutMs: 300 });
    expect(await lastEvent(host, "tool", { text: "x" })).toEqual({
      type: "error",
      code: "PLUGIN_WORKER_START_FAILED",
      data: 'tool "tool" of plugin "fixture": worker failed to start: not ready within 300 ms',
    });
    expect(host.stats()).toMatchObject({ workers: 0, starting: 0, consecutiveStartFailures: 1 });
  });

  it("opens the circuit after repeated start failures", async () => {
    const dir = await writePluginFixture(join(root, "broken"), { pluginId: "fixture", source: BROKEN_SOURCE });
    const host = await open(dir, { pool: { circuitBreakerThreshold: 3, circuitBreakerCooldownMs: 60_000 } });
    for (let i = 0; i < 3; i++) {
      expect(await lastEvent(host, "tool", { text: "x" })).toEqual({
        type: "error",
        code: "PLUGIN_WORKER_START_FAILED",
        data: 'tool "tool" of plugin "fixture": worker failed to start: could not load index.js: boom at import',
      });
    }
    const event = await lastEvent(host, "tool", { text: "x" });
    expect(event).toMatchObject({ type: "error", code: "PLUGIN_CIRCUIT_OPEN" });
    await expect(host.warmUp()).rejects.toMatchObject({ code: "PLUGIN_CIRCUIT_OPEN" });
    expect(event.data).toContain("workers failed to start 3 times in a row");
    expect(host.stats()).toMatchObject({ workersStarted: 0, consecutiveStartFailures: 3, circuitOpen: true });
  });

  it("delivers stream events while the handler still runs, and stops a flood beyond the limit", async () => {
    const host = await open(dist, { pool: { maxStreamEventsPerCall: 100 } });
    const events: PluginEvent[] = [];
    let inFlightAtFirstEvent = -1;
    for await (const event of host.run("flood", { text: "x" })) {
      if (events.length === 0) inFlightAtFirstEvent = host.stats().inFlight;
      events.push(event);
    }
    expect(inFlightAtFirstEvent).toBe(1); // the first event arrived before the call ended: streamed, not buffered
    expect(events.filter((event) => event.type === "stream")).toHaveLength(100);
    expect(events.at(-1)).toEqual({
      type: "error",
      code: "PLUGIN_LIMIT_EXCEEDED",
      data: 'tool "flood" of plugin "fixture": sent more than 100 stream events; its worker was stopped',
    });
    expect((await host.invoke("echo", { text: "ok" })).output).toEqual({ text: "ok" });
  });

  it("warms up a worker ahead of the first call", async () => {
    const host = await open(dist);
    expect(host.stats()).toMatchObject({ workers: 0, workersStarted: 0 });
    await host.warmUp();
    await host.warmUp(); // already warm: no second worker
    expect(host.stats()).toMatchObject({ workers: 1, workersStarted: 1 });
    expect((await host.invoke("counter", { text: "x" })).output).toEqual({ text: "1" });
    expect(host.stats().workersStarted).toBe(1);
  });

  it("stops idle workers", async () => {
    const host = await open(dist, { pool: { idleTimeoutMs: 50 } });
    await host.invoke("echo", { text: "x" });
    while (host.stats().workers > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(host.stats()).toMatchObject({ workers: 0, workersStarted: 1 });
    expect((await host.invoke("echo", { text: "again" })).output).toEqual({ text: "again" });
  });
});

describe("close", () => {
  it("stops a worker that is still starting and fails the waiting call", async () => {
    const host = await PluginHost.load(dist, { maxHeapMb: 64 });
    const pending = collect(host.run("echo", { text: "x" }));
    await host.close();
    expect(await pending).toEqual([
      {
        type: "error",
        code: "PLUGIN_HOST_CLOSED",
        data: 'tool "echo" of plugin "fixture": the host was closed during the call',
      },
    ]);
    expect(await lastEvent(host, "echo", { text: "x" })).toMatchObject({ code: "PLUGIN_HOST_CLOSED" });
  });
});
