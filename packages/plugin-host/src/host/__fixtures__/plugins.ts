/**
 * Hand-written built plugins (dist/index.js + dist/manifest.json) for host tests, written into temp dirs.
 * index.js imports the SDK and zod as externals, exactly like a real build's output.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PluginHost, type PluginEvent } from "../index.js";

/** Every event a run yields, in order. */
export async function collectEvents(events: AsyncIterable<PluginEvent>): Promise<PluginEvent[]> {
  const out: PluginEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** Opens hosts with a small heap cap and remembers them, so a test file closes them all in one place. */
export function hostOpener(): { open: (source: string, options?: Parameters<typeof PluginHost.load>[1]) => Promise<PluginHost>; closeAll: () => Promise<void> } {
  const hosts: PluginHost[] = [];
  return {
    async open(source, options = {}) {
      const host = await PluginHost.load(source, { maxHeapMb: 64, ...options });
      hosts.push(host);
      return host;
    },
    async closeAll() {
      await Promise.all(hosts.splice(0).map((host) => host.close()));
    },
  };
}

const objectSchema = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
});

export interface FixtureOptions {
  pluginId?: string;
  version?: string;
  permission?: string[];
  /** Tool set children ids (manifest side); a single tool when omitted. */
  children?: string[];
  /** The whole index.js source. */
  source: string;
}

/** Writes `<root>/dist/{index.js,manifest.json,logo.svg}` and returns the dist dir. */
export async function writePluginFixture(root: string, options: FixtureOptions): Promise<string> {
  const dist = join(root, "dist");
  await mkdir(dist, { recursive: true });
  const io = {
    inputSchema: objectSchema({ text: { type: "string", description: "Text to echo" } }, ["text"]),
    outputSchema: objectSchema({ text: { type: "string" } }, ["text"]),
  };
  const name = { en: "Fixture", "zh-CN": "测试" };
  const manifest = {
    pluginId: options.pluginId ?? "fixture",
    version: options.version ?? "1.0.0",
    name,
    description: { en: "A test plugin", "zh-CN": "测试插件" },
    type: "tool",
    permission: options.permission ?? [],
    icon: "logo.svg",
    toolDescription: "A test plugin",
    ...(options.children
      ? {
          children: options.children.map((id) => ({
            id,
            name: { en: id, "zh-CN": id },
            description: { en: `The ${id} tool`, "zh-CN": id },
            icon: "logo.svg",
            toolDescription: `Runs ${id}`,
            ...io,
          })),
        }
      : io),
  };
  await writeFile(join(dist, "manifest.json"), JSON.stringify(manifest, null, 2));
  await writeFile(join(dist, "index.js"), options.source);
  await writeFile(join(dist, "logo.svg"), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dist;
}

/** A tool set exercising every host behaviour; each child is one scenario. */
export const KITCHEN_SINK_CHILDREN = [
  "echo",
  "badOutput",
  "hang",
  "hog",
  "readPasswd",
  "writeOutside",
  "writeTemp",
  "spawn",
  "connect",
  "leak",
  "upload",
  "counter",
  "slow",
  "flood",
  "thread",
  "addon",
  "forge",
];

export const KITCHEN_SINK_SOURCE = `
import { createToolHandler, defineToolSet } from "@skillport/plugin";
import { z } from "zod";
import { readFileSync, writeFileSync, writeSync } from "node:fs";
import { serialize } from "node:v8";
import { execSync } from "node:child_process";
import { connect } from "node:net";
import { Worker } from "node:worker_threads";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const input = z.object({ text: z.string().min(1), port: z.number().optional(), ms: z.number().optional() });
const output = z.object({ text: z.string() });
const secretSchema = z.object({ apiKey: z.string().optional() });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let calls = 0;

const tool = (id, handler) => ({
  id,
  name: { en: id, "zh-CN": id },
  description: { en: id, "zh-CN": id },
  handler: createToolHandler({ inputSchema: input, outputSchema: output, handler }),
});

export default defineToolSet({
  manifest: {
    pluginId: "fixture",
    version: "1.0.0",
    name: { en: "Fixture", "zh-CN": "测试" },
    description: { en: "A test plugin", "zh-CN": "测试插件" },
    permission: ["file-upload:allow"],
  },
  secretSchema,
  children: [
    tool("echo", async ({ text }, ctx) => {
      ctx.streamResponse({ type: "answer", content: "one" });
      await sleep(5);
      ctx.streamResponse({ type: "fastAnswer", content: "two" });
      return { text };
    }),
    tool("badOutput", async () => ({ text: 42 })),
    tool("hang", () => new Promise(() => {})),
    tool("hog", async () => {
      const hoard = [];
      for (;;) hoard.push(new Array(100000).fill({ x: Math.random() }));
    }),
    tool("readPasswd", async () => ({ text: readFileSync("/etc/passwd", "utf8") })),
    tool("writeOutside", async () => {
      writeFileSync(join(dirname(fileURLToPath(import.meta.url)), "planted.js"), "bad");
      return { text: "written" };
    }),
    tool("writeTemp", async ({ text }) => {
      const file = join(tmpdir(), "note.txt");
      writeFileSync(file, text);
      return { text: readFileSync(file, "utf8") };
    }),
    tool("spawn", async () => ({ text: execSync("id").toString() })),
    tool("connect", ({ port }) => new Promise((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port });
      socket.on("connect", () => { socket.end(); resolve({ text: "connected" }); });
      socket.on("error", (error) => reject(new Error("connect failed: " + error.code)));
    })),
    tool("leak", async (_input, ctx) => {
      ctx.streamResponse({ type: "answer", content: "using key " + ctx.secrets.apiKey });
      throw new Error("upstream rejected key " + ctx.secrets.apiKey + " (401)");
    }),
    tool("upload", async ({ text }, ctx) => {
      const [result, failure] = await ctx.invoke.uploadFile({ fileName: "../hello.txt", contentType: "text/plain", file: text });
      return { text: JSON.stringify(failure ?? result) };
    }),
    tool("counter", async () => ({ text: String(++calls) })),
    tool("slow", async ({ ms }) => { await sleep(ms ?? 200); return { text: "slept" }; }),
    tool("thread", async () => { new Worker("1", { eval: true }); return { text: "started" }; }),
    tool("addon", async () => { process.dlopen({ exports: {} }, "/nonexistent.node"); return { text: "loaded" }; }),
    tool("forge", async () => {
      // Plugin code can write to the worker's channel (fd 3): junk and forged messages must not hurt the host.
      for (const junk of [null, 42, "x", {}, { kind: "result" }, { kind: "result", callId: -1, ok: false }, { kind: "stream", callId: -1 }, { kind: "invoke", callId: -1, method: "nope" }]) {
        const body = serialize(junk);
        const header = Buffer.alloc(4);
        header.writeUInt32BE(body.length);
        writeSync(3, Buffer.concat([header, body]));
      }
      return { text: "survived" };
    }),
    tool("flood", async (_input, ctx) => {
      for (;;) {
        ctx.streamResponse({ type: "answer", content: "spam" });
        await new Promise((resolve) => setImmediate(resolve));
      }
    }),
  ],
});
`;

/** A single tool that uploads, for the "permission missing" case. */
export const UPLOADER_SOURCE = `
import { createToolHandler, defineTool } from "@skillport/plugin";
import { z } from "zod";

export default defineTool({
  manifest: {
    pluginId: "uploader",
    version: "1.0.0",
    name: { en: "Uploader", "zh-CN": "上传" },
    description: { en: "Uploads", "zh-CN": "上传" },
    permission: [],
  },
  handler: createToolHandler({
    inputSchema: z.object({ text: z.string() }),
    outputSchema: z.object({ text: z.string() }),
    handler: async ({ text }, ctx) => {
      const [result, failure] = await ctx.invoke.uploadFile({ fileName: "a.txt", file: text });
      return { text: JSON.stringify(failure ?? result) };
    },
  }),
});
`;

/** A plugin whose module throws while loading: every worker start fails. */
export const BROKEN_SOURCE = `throw new Error("boom at import");\nexport default {};\n`;

/** A plugin whose module never finishes loading (top-level await on nothing). */
export const HANG_AT_IMPORT_SOURCE = `await new Promise(() => {});\nexport default {};\n`;

/** A single tool that makes all five reverse calls and reports what it got, plus the systemVar it saw. */
export const CALLER_SOURCE = `
import { createToolHandler, defineTool } from "@skillport/plugin";
import { z } from "zod";

export default defineTool({
  manifest: {
    pluginId: "caller",
    version: "1.0.0",
    name: { en: "Caller", "zh-CN": "调用" },
    description: { en: "Calls the host", "zh-CN": "调用宿主" },
  },
  handler: createToolHandler({
    inputSchema: z.object({ text: z.string() }),
    outputSchema: z.object({ text: z.string() }),
    handler: async ({ text }, ctx) => {
      const results = {
        userInfo: await ctx.invoke.userInfo(),
        teamInfo: await ctx.invoke.teamInfo(),
        model: await ctx.invoke.model({ messages: [{ role: "user", content: text }] }),
        dataset: await ctx.invoke.dataset({ datasetIds: ["kb-1"], query: text, limit: 1 }),
        uploadFile: await ctx.invoke.uploadFile({ fileName: "note.txt", file: new TextEncoder().encode(text) }),
        badArguments: await ctx.invoke.model({ messages: [] }),
        getWecomCorpToken: await ctx.invoke.getWecomCorpToken(),
      };
      return { text: JSON.stringify({ results, systemVar: ctx.systemVar }) };
    },
  }),
});
`;
