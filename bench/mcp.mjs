// MCP server benchmark (issue 24): `skills/list` at 1,000 skills and `resources/read` of a 100 KB file over Streamable
// HTTP, beside a static HTTP server answering the SAME bytes in the same run (each server its own process, autocannon
// in this one, 127.0.0.1); then the RSS of a server holding 10,000 skills against the bytes it serves.
//   node bench/mcp.mjs [--seconds 10] [--connections 8] [--size 1000] [--rss-size 10000] [--only http|rss]
//                      [--baseline <checkout>]
// `--baseline` serves the same corpus with that checkout's built @skillport/mcp too (e.g. a worktree of main, after
// `npm run build` there), alternated with this one in the same run: paired figures on a loaded host. The server
// processes also report their GC pauses and event-loop delay while under load (the p99 tails' usual causes).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { generateCorpus } from "./corpus.mjs";
import { printTable, processCpuMs } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = (pkg, tree = path.join(here, "..")) => path.join(tree, "packages", pkg, "dist", "index.js");
const self = fileURLToPath(import.meta.url);
const text = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const arg = (name, fallback) => {
  const value = text(name, undefined);
  return value === undefined ? fallback : Number(value);
};

/** GC pauses and event-loop delay of this process since the last reset, sent to the parent on request. */
function reportPauses() {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let gc = { count: 0, ms: 0, maxMs: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.ms += e.duration;
      gc.maxMs = Math.max(gc.maxMs, e.duration);
    }
  }).observe({ entryTypes: ["gc"] });
  loop.enable();
  process.on("message", (m) => {
    if (m === "stats") process.send({ gc, loopP99Ms: loop.percentile(99) / 1e6, loopMaxMs: loop.max / 1e6 });
    gc = { count: 0, ms: 0, maxMs: 0 };
    loop.reset();
  });
}

/** Child modes: `serve <root> [tree]` (the MCP server), `static <file>` (the floor), `rss <root> [tree]`. */
async function child(mode, target, tree) {
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
    reportPauses();
    server.listen(0, "127.0.0.1", () =>
      console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })),
    );
    return;
  }
  const [{ SkillRegistry }, { LocalFileSystemSkillProvider }, { SkillServer, serveHttp }] = await Promise.all([
    import(dist("core")),
    import(dist("fs")),
    // The MCP package from the checkout under test; core and fs from this one (the same modules either way).
    import(dist("mcp", tree)),
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
      // An answer is its bytes, or a promise of them when a file is read from its source first (decision 0381).
      const page = JSON.parse(
        (await skills.legacyAnswer("skills/list", cursor === undefined ? {} : { cursor })).toString(),
      );
      for (const entry of page.skills)
        for (const r of entry.resources)
          answers += (await skills.legacyAnswer("resources/read", { uri: r.uri })).byteLength;
      cursor = page.nextCursor;
      more = cursor !== undefined;
    }
    globalThis.gc?.();
    console.log(
      JSON.stringify({
        // The process's peak RSS so far (the kernel's figure): building the snapshot reads every file once.
        peakRss: process.resourceUsage().maxRSS * 1024,
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
  reportPauses();
  const http = await serveHttp(skills, { noAuth: true, rateLimit: 1e9 });
  console.log(JSON.stringify({ url: http.url, skills: skills.snapshot.skills.length }));
}

function startChild(args) {
  const proc = spawn(process.execPath, ["--expose-gc", self, "--child", ...args], {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
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

/** Starts an MCP server child over `root` from `tree`, opens a 2025-era session, and learns the two request bodies. */
async function openServer(root, tree) {
  const mcp = await startChild(["serve", root, ...(tree === undefined ? [] : [tree])]);
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
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-session-id": session,
    "mcp-protocol-version": "2025-11-25",
  };
  return { proc: mcp.proc, url, headers, entries, listBody, listed, readBody, read };
}

/** The GC pauses and event-loop delay a child saw since it was last asked (and resets them). */
function pauses(proc) {
  return new Promise((resolve) => {
    proc.once("message", resolve);
    proc.send("stats");
  });
}

async function measureHttp(work, { seconds, connections, size, baseline }) {
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

    const servers = [{ name: "skillport mcp", ...(await openServer(root)) }];
    children.push(servers[0].proc);
    if (baseline !== undefined) {
      servers.push({ name: "baseline", ...(await openServer(root, path.resolve(baseline))) });
      children.push(servers[1].proc);
      for (const which of ["listed", "read"])
        if (servers[1][which].text !== servers[0][which].text)
          throw new Error(`the baseline answers ${which} otherwise`);
    }
    const { listed, read, listBody, readBody, entries } = servers[0];

    const bodiesFile = path.join(work, "bodies.json");
    writeFileSync(bodiesFile, JSON.stringify({ "/list": listed.text, "/read": read.text }));
    const floor = await startChild(["static", bodiesFile]);
    children.push(floor.proc);

    const rows = [];
    const results = {};
    for (const [request, body, floorPath] of [
      ["skills/list (first page of 100)", listBody, "/list"],
      ["resources/read 100 KB", readBody, "/read"],
    ]) {
      // Interleaved: floor, server(s), floor, server(s) — all see the same machine load.
      const runs = new Map([["floor", []], ...servers.map((s) => [s.name, []])]);
      for (let round = 0; round < 2; round++) {
        await pauses(floor.proc);
        const f = await cannon(
          `${floor.info.url}${floorPath}`,
          { body: JSON.stringify(body), headers: servers[0].headers },
          seconds / 2,
          connections,
          floor.proc.pid,
        );
        runs.get("floor").push({ ...f, pauses: await pauses(floor.proc) });
        for (const server of servers) {
          await pauses(server.proc);
          const r = await cannon(
            server.url,
            { body: JSON.stringify(body), headers: server.headers },
            seconds / 2,
            connections,
            server.proc.pid,
          );
          runs.get(server.name).push({ ...r, pauses: await pauses(server.proc) });
        }
      }
      const summary = (xs) => ({
        rps: (xs[0].requests.average + xs[1].requests.average) / 2,
        p99: Math.max(xs[0].latency.p99, xs[1].latency.p99),
        // CPU per request is what a loaded host cannot distort much: each server's own CPU time over its requests.
        cpuUs: (xs[0].cpu + xs[1].cpu) / 2,
        errors: xs[0].errors + xs[1].errors + xs[0].non2xx + xs[1].non2xx,
        requests: xs[0].requests.total + xs[1].requests.total,
        gcCount: xs[0].pauses.gc.count + xs[1].pauses.gc.count,
        gcMs: xs[0].pauses.gc.ms + xs[1].pauses.gc.ms,
        gcMaxMs: Math.max(xs[0].pauses.gc.maxMs, xs[1].pauses.gc.maxMs),
        loopP99Ms: Math.max(xs[0].pauses.loopP99Ms, xs[1].pauses.loopP99Ms),
      });
      const fl = summary(runs.get("floor"));
      results[request] = { floor: fl, bytes: Buffer.byteLength(floorPath === "/list" ? listed.text : read.text) };
      for (const [name, xs] of runs) {
        const r = summary(xs);
        results[request][name] = r;
        rows.push([
          request,
          name,
          `${results[request].bytes} B`,
          `${Math.round(r.rps)} req/s`,
          `${r.p99} ms`,
          (r.rps / fl.rps).toFixed(2),
          `${Math.round(r.cpuUs)} µs`,
          (fl.cpuUs / r.cpuUs).toFixed(2),
          `${((r.gcCount * 1000) / r.requests).toFixed(1)} / ${((r.gcMs * 1000) / r.requests).toFixed(1)} ms`,
          `${r.gcMaxMs.toFixed(1)} ms`,
          `${r.loopP99Ms.toFixed(1)} ms`,
          String(r.errors),
        ]);
      }
    }
    printTable(
      `MCP over Streamable HTTP, ${entries.length} skills, ${connections} connections, load ${os.loadavg()[0].toFixed(1)}`,
      [
        "request",
        "server",
        "answer",
        "req/s",
        "p99",
        "ratio (req/s, floor = 1)",
        "CPU/request",
        "CPU ratio (floor / server)",
        "GC per 1,000 requests: count / time",
        "longest GC",
        "event-loop delay p99",
        "errors",
      ],
      rows,
    );
    return results;
  } finally {
    for (const p of children) p.kill();
  }
}

async function measureRss(work, { rssSize, baseline }) {
  const rssRoot = path.join(work, "rss");
  await generateCorpus(rssRoot, rssSize);
  const rows = [];
  const out = {};
  for (const [name, tree] of [
    ["skillport mcp", undefined],
    ...(baseline === undefined ? [] : [["baseline", path.resolve(baseline)]]),
  ]) {
    const child = await startChild(["rss", rssRoot, ...(tree === undefined ? [] : [tree])]);
    child.proc.kill();
    const rss = child.info;
    out[name] = rss;
    rows.push([
      name,
      rss.skills,
      `${(rss.rss / 2 ** 20).toFixed(1)} MiB`,
      `${(rss.heapUsed / 2 ** 20).toFixed(1)} MiB`,
      `${(rss.bytes / 2 ** 20).toFixed(1)} MiB`,
      (rss.rss / rss.bytes).toFixed(2),
      `${(rss.rssServed / 2 ** 20).toFixed(1)} MiB`,
      (rss.rssServed / rss.bytes).toFixed(2),
      `${(rss.peakRss / 2 ** 20).toFixed(1)} MiB`,
    ]);
  }
  printTable(
    `MCP server memory at ${rssSize} skills`,
    [
      "server",
      "skills",
      "RSS",
      "heap used",
      "bytes served",
      "RSS / bytes",
      "RSS after every page and file was read once",
      "/ bytes",
      "peak RSS (build included)",
    ],
    rows,
  );
  return out;
}

async function main() {
  const options = {
    seconds: arg("seconds", 10),
    connections: arg("connections", 8),
    size: arg("size", 1000),
    rssSize: arg("rss-size", 10_000),
    baseline: text("baseline", undefined),
  };
  const only = text("only", undefined);
  const work = mkdtempSync(path.join(os.tmpdir(), "skillport-bench-mcp-"));
  try {
    const results = only === "rss" ? undefined : await measureHttp(work, options);
    const rss = only === "http" ? undefined : await measureRss(work, options);
    console.log(JSON.stringify({ results, rss }));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") await child(process.argv[3], process.argv[4], process.argv[5]);
else await main();
