// MCP server benchmark (issue 24): `skills/list` at 1,000 skills and `resources/read` of a 100 KB file over Streamable
// HTTP, beside a static HTTP server answering the SAME bytes in the same run (each server its own process, autocannon
// in this one, 127.0.0.1); then the RSS of a server holding 10,000 skills against the bytes it serves.
//   node bench/mcp.mjs [--seconds 10] [--connections 8] [--size 1000] [--rss-size 10000]
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { generateCorpus } from "./corpus.mjs";
import { printTable, processCpuMs } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = (pkg) => path.join(here, "..", "packages", pkg, "dist", "index.js");
const self = fileURLToPath(import.meta.url);
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};

/** Child modes: `serve <root>` (the MCP server), `static <file>` (the floor), `rss <root>`. */
async function child(mode, target) {
  if (mode === "static") {
    const bodies = JSON.parse(readFileSync(target, "utf8"));
    const byPath = new Map(Object.entries(bodies).map(([k, v]) => [k, Buffer.from(v, "utf8")]));
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        const body = byPath.get(req.url);
        res.writeHead(body ? 200 : 404, {
          "content-type": "application/json",
          "content-length": String(body?.byteLength ?? 0),
        });
        res.end(body);
      });
    });
    server.listen(0, "127.0.0.1", () =>
      console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })),
    );
    return;
  }
  const [{ SkillRegistry }, { LocalFileSystemSkillProvider }, { SkillServer, serveHttp }] = await Promise.all([
    import(dist("core")),
    import(dist("fs")),
    import(dist("mcp")),
  ]);
  const registry = new SkillRegistry();
  await registry.addProvider(new LocalFileSystemSkillProvider(target, { name: "fs:bench" }), { watch: false });
  const skills = await SkillServer.create(registry, { watch: false });
  if (mode === "rss") {
    globalThis.gc?.();
    const loaded = process.memoryUsage();
    // Then what serving costs on top: a client walks every page and reads every file once (the answers a 2025-era
    // session gets, through the same serialisation the HTTP path uses), and the process settles again.
    let answers = 0;
    for (let cursor, more = true; more;) {
      const page = JSON.parse(skills.legacyAnswer("skills/list", cursor === undefined ? {} : { cursor }).toString());
      for (const entry of page.skills)
        for (const r of entry.resources) answers += skills.legacyAnswer("resources/read", { uri: r.uri }).byteLength;
      cursor = page.nextCursor;
      more = cursor !== undefined;
    }
    globalThis.gc?.();
    console.log(
      JSON.stringify({
        rss: loaded.rss,
        heapUsed: loaded.heapUsed,
        rssServed: process.memoryUsage().rss,
        answered: answers,
        bytes: skills.snapshot.bytes,
        skills: skills.snapshot.skills.length,
      }),
    );
    return;
  }
  const http = await serveHttp(skills, { noAuth: true, rateLimit: 1e9 });
  console.log(JSON.stringify({ url: http.url, skills: skills.snapshot.skills.length }));
}

function startChild(args) {
  const proc = spawn(process.execPath, ["--expose-gc", self, "--child", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    proc.stdout.on("data", (c) => {
      out += c;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve({ proc, info: JSON.parse(line) });
    });
    proc.on("exit", (code) => reject(new Error(`child ${args[0]} exited ${code}`)));
  });
}

async function rpc(url, session, body) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(session && { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }),
    },
    body: JSON.stringify(body),
  });
  return { session: res.headers.get("mcp-session-id"), text: await res.text() };
}

/** Runs autocannon; `cpu` is the CPU time the server process `pid` spent meanwhile, per request, in µs. */
function cannon(url, { body, headers }, seconds, connections, pid) {
  const before = processCpuMs(pid).self;
  return new Promise((resolve, reject) => {
    autocannon(
      { url, method: "POST", body, headers, duration: seconds, connections, pipelining: 1 },
      (error, result) =>
        error
          ? reject(error)
          : resolve({ ...result, cpu: ((processCpuMs(pid).self - before) * 1000) / result.requests.total }),
    );
  });
}

async function main() {
  const seconds = arg("seconds", 10);
  const connections = arg("connections", 8);
  const size = arg("size", 1000);
  const rssSize = arg("rss-size", 10_000);
  const work = mkdtempSync(path.join(os.tmpdir(), "skillport-bench-mcp-"));
  const children = [];
  try {
    const root = path.join(work, "skills");
    await generateCorpus(root, size);
    // One skill with a 100 KB reference for resources/read.
    mkdirSync(path.join(root, "big-reference", "references"), { recursive: true });
    writeFileSync(
      path.join(root, "big-reference", "SKILL.md"),
      "---\nname: big-reference\ndescription: Has a 100 KB reference. Use when benchmarking.\n---\n# Big\n",
    );
    writeFileSync(
      path.join(root, "big-reference", "references", "big.md"),
      `# Big\n${"All work and no play makes a 100 KB file. ".repeat(2400)}`.slice(0, 100_000),
    );

    const mcp = await startChild(["serve", root]);
    children.push(mcp.proc);
    const url = mcp.info.url;
    const init = await rpc(url, undefined, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
    });
    const session = init.session;
    await rpc(url, session, { jsonrpc: "2.0", method: "notifications/initialized" });
    const listBody = { jsonrpc: "2.0", id: 1, method: "skills/list", params: {} };
    const listed = await rpc(url, session, listBody);
    const entries = [];
    for (let cursor, page = 0; page === 0 || cursor !== undefined; page++) {
      const result = JSON.parse(
        (
          await rpc(url, session, {
            jsonrpc: "2.0",
            id: 10 + page,
            method: "skills/list",
            params: cursor === undefined ? {} : { cursor },
          })
        ).text,
      ).result;
      entries.push(...result.skills);
      cursor = result.nextCursor;
    }
    const big = entries.find((s) => s.frontmatter.name === "big-reference");
    const bigUri = big.resources.find((r) => r.uri.endsWith("big.md")).uri;
    const readBody = { jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: bigUri } };
    const read = await rpc(url, session, readBody);

    const bodiesFile = path.join(work, "bodies.json");
    writeFileSync(bodiesFile, JSON.stringify({ "/list": listed.text, "/read": read.text }));
    const floor = await startChild(["static", bodiesFile]);
    children.push(floor.proc);

    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    };
    const rows = [];
    const results = {};
    for (const [name, body, floorPath] of [
      ["skills/list (first page of 100)", listBody, "/list"],
      ["resources/read 100 KB", readBody, "/read"],
    ]) {
      // Interleaved: floor, server, floor, server — the two see the same machine load.
      const a = await cannon(
        `${floor.info.url}${floorPath}`,
        { body: JSON.stringify(body), headers },
        seconds / 2,
        connections,
        floor.proc.pid,
      );
      const b = await cannon(url, { body: JSON.stringify(body), headers }, seconds / 2, connections, mcp.proc.pid);
      const c = await cannon(
        `${floor.info.url}${floorPath}`,
        { body: JSON.stringify(body), headers },
        seconds / 2,
        connections,
        floor.proc.pid,
      );
      const d = await cannon(url, { body: JSON.stringify(body), headers }, seconds / 2, connections, mcp.proc.pid);
      const rps = (x, y) => (x.requests.average + y.requests.average) / 2;
      const p99 = (x, y) => Math.max(x.latency.p99, y.latency.p99);
      const errors = b.errors + d.errors + b.non2xx + d.non2xx;
      // CPU per request is what a loaded host cannot distort much: each server's own CPU time over its requests.
      const cpu = (x, y) => (x.cpu + y.cpu) / 2;
      results[name] = {
        mcpRps: rps(b, d),
        floorRps: rps(a, c),
        mcpCpuUs: cpu(b, d),
        floorCpuUs: cpu(a, c),
        mcpP99: p99(b, d),
        floorP99: p99(a, c),
        errors,
        bytes: Buffer.byteLength(floorPath === "/list" ? listed.text : read.text),
      };
      const r = results[name];
      rows.push([
        name,
        `${r.bytes} B`,
        `${Math.round(r.mcpRps)} req/s`,
        `${r.mcpP99} ms`,
        `${Math.round(r.floorRps)} req/s`,
        `${r.floorP99} ms`,
        (r.mcpRps / r.floorRps).toFixed(2),
        `${Math.round(r.mcpCpuUs)} µs`,
        `${Math.round(r.floorCpuUs)} µs`,
        (r.floorCpuUs / r.mcpCpuUs).toFixed(2),
        String(errors),
      ]);
    }
    printTable(
      `MCP over Streamable HTTP, ${entries.length} skills, ${connections} connections, load ${os.loadavg()[0].toFixed(1)}`,
      [
        "request",
        "answer",
        "skillport mcp",
        "p99",
        "static floor",
        "p99",
        "ratio",
        "CPU/request",
        "floor CPU/request",
        "CPU ratio (floor / mcp)",
        "errors",
      ],
      rows,
    );
    for (const p of children.splice(0)) p.kill();

    const rssRoot = path.join(work, "rss");
    await generateCorpus(rssRoot, rssSize);
    const rss = (await startChild(["rss", rssRoot])).info;
    printTable(
      `MCP server memory at ${rss.skills} skills`,
      ["RSS", "heap used", "bytes served", "RSS / bytes", "RSS after every page and file was read once", "/ bytes"],
      [
        [
          `${(rss.rss / 2 ** 20).toFixed(1)} MiB`,
          `${(rss.heapUsed / 2 ** 20).toFixed(1)} MiB`,
          `${(rss.bytes / 2 ** 20).toFixed(1)} MiB`,
          (rss.rss / rss.bytes).toFixed(2),
          `${(rss.rssServed / 2 ** 20).toFixed(1)} MiB`,
          (rss.rssServed / rss.bytes).toFixed(2),
        ],
      ],
    );
    console.log(JSON.stringify({ results, rss }));
  } finally {
    for (const p of children) p.kill();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") await child(process.argv[3], process.argv[4]);
else await main();
