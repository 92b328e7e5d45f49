// Plugin host benchmark: cold first call (start a worker + load the plugin) and warm call overhead versus calling
// the same handler in-process (with the same input/output validation), all in one run, reported as medians.
// Standalone: imports the BUILT packages (run `npx tsc -b packages/plugin-host` first).
//   node bench/plugin.mjs [--cold 10] [--warm 500]
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { PluginHost } from "../packages/plugin-host/dist/index.js";

const arg = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const COLD_RUNS = arg("--cold", 10);
const WARM_CALLS = arg("--warm", 500);

const SOURCE = `
import { createToolHandler, defineTool } from "@skillport/plugin";
import { z } from "zod";
export default defineTool({
  manifest: {
    pluginId: "bench-echo", version: "1.0.0",
    name: { en: "Echo", "zh-CN": "回声" }, description: { en: "Echo", "zh-CN": "回声" }, permission: [],
  },
  handler: createToolHandler({
    inputSchema: z.object({ text: z.string().min(1), n: z.number().int().optional() }),
    outputSchema: z.object({ text: z.string(), length: z.number() }),
    handler: async ({ text }) => ({ text, length: text.length }),
  }),
});
`;
const objectSchema = { type: "object" };
const MANIFEST = {
  pluginId: "bench-echo",
  version: "1.0.0",
  name: { en: "Echo", "zh-CN": "回声" },
  description: { en: "Echo", "zh-CN": "回声" },
  type: "tool",
  permission: [],
  icon: "logo.svg",
  toolDescription: "Echo",
  inputSchema: objectSchema,
  // A real schema: the host checks every output against it (issue 8, hole 8).
  outputSchema: {
    type: "object",
    properties: { text: { type: "string" }, length: { type: "number" } },
    required: ["text", "length"],
    additionalProperties: false,
  },
};

// Inside the repo (.bench-tmp/ is git- and lint-ignored) so the in-process import resolves the SDK and zod.
const root = fileURLToPath(new URL("../.bench-tmp/plugin-bench/", import.meta.url));
const dist = join(root, "dist");
await rm(root, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await writeFile(join(dist, "index.js"), SOURCE);
await writeFile(join(dist, "manifest.json"), JSON.stringify(MANIFEST));
await writeFile(join(dist, "logo.svg"), "<svg/>");
await writeFile(join(root, "package.json"), '{"type":"module"}');

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const input = { text: "hello bench" };

async function cold(bubblewrap) {
  const times = [];
  let status;
  for (let i = 0; i < COLD_RUNS; i++) {
    const start = performance.now();
    const host = await PluginHost.load(dist, { bubblewrap });
    await host.invoke("tool", input);
    times.push(performance.now() - start);
    status = host.status;
    await host.close();
  }
  return { ms: median(times), status };
}

// With secrets, each call also derives its worker partition (an HMAC) and redacts every encoding of the secrets.
const secrets = { apiKey: "sk-bench-0123456789abcdef", region: "eu-west-1" };

async function warm(bubblewrap, options = {}) {
  const host = await PluginHost.load(dist, { bubblewrap });
  try {
    for (let i = 0; i < 50; i++) await host.invoke("tool", input, options); // warm up the worker and the JIT
    const times = [];
    for (let i = 0; i < WARM_CALLS; i++) {
      const start = performance.now();
      await host.invoke("tool", input, options);
      times.push(performance.now() - start);
    }
    return median(times);
  } finally {
    await host.close();
  }
}

async function inProcess() {
  const definition = (await import(pathToFileURL(join(dist, "index.js")).href)).default;
  const { inputSchema, outputSchema, handler } = definition.handler;
  const call = async () => outputSchema.parse(await handler(inputSchema.parse(input), {}));
  for (let i = 0; i < 1000; i++) await call();
  const times = [];
  for (let i = 0; i < WARM_CALLS; i++) {
    const start = performance.now();
    await call();
    times.push(performance.now() - start);
  }
  return median(times);
}

const direct = await inProcess();
const rows = [];
for (const mode of ["auto", "off"]) {
  const c = await cold(mode);
  const w = await warm(mode);
  const ws = await warm(mode, { secrets });
  const label = c.status.bubblewrap ? "bubblewrap + permissions" : "permissions only";
  rows.push([label, c.ms, w, w - direct, ws - direct]);
}
await rm(root, { recursive: true, force: true });

const fmt = (ms) => `${ms.toFixed(3)} ms`.padStart(12);
console.log(`plugin host bench — node ${process.version}, ${COLD_RUNS} cold runs, ${WARM_CALLS} warm calls (medians)`);
console.log(`in-process handler call (with validation): ${fmt(direct)}`);
console.log("");
console.log(
  `${"sandbox".padEnd(26)} ${"cold first call".padStart(16)} ${"warm call".padStart(12)} ${"warm overhead".padStart(14)} ${"with secrets".padStart(14)}`,
);
for (const [label, c, w, o, os] of rows)
  console.log(`${label.padEnd(26)} ${fmt(c).padStart(16)} ${fmt(w)} ${fmt(o).padStart(14)} ${fmt(os).padStart(14)}`);
console.log("");
console.log("goals: warm overhead < 2 ms median, cold < 250 ms");
