// Registry under load (issue 25): the built `skillport registry serve` process (SQLite by default) holding 1,000 and
// 10,000 published skills, against a static node:http server answering the SAME bytes from memory in the same run.
// autocannon (in this process) alternates static and registry runs, `--rounds` pairs per request kind:
//   - search (`GET /api/v1/skills?q=…`): eight queries in turn, and every request a query not asked recently (the
//     server keeps answers per catalog snapshot, so the first shows repeated queries, the second the ranking itself):
//     p99 ≤ 20 ms;
//   - `GET` of a 100 KB file of a version: ≥ 70% of the static server's requests/s;
//   - `/.well-known/agent-skills/index.json`: mean time ≤ 1.2× the static server's for the same bytes;
//   - 0 errors or non-2xx answers;
// then `--publishes` sequential publishes of a 1 MB package over HTTP: p50 ≤ 150 ms.
// The database is seeded through the store's own publish path, in process, before the server starts (a child of this
// script; SQLite with `synchronous = OFF` and blob files written without fsync while seeding, to bound its time).
// Each server's CPU time per request (and per publish) comes from /proc; figures are medians of the pairs. Compare
// ratios and CPU times: on a loaded machine absolute latencies measure the run queue.
//   node bench/registry.mjs [--sizes 1000,10000] [--seconds 2] [--rounds 5] [--connections 8] [--publishes 11]
//                           [--db sqlite|postgres]   (postgres: SKILLPORT_BENCH_POSTGRES_URL, default the test database)
//                           [--seeded DIR]   (SQLite: seed DIR/sqlite-<size> once and start each run from a copy)
//                           [--baseline TREE]   (also serve the same database with TREE's built CLI, e.g. a checkout
//                                                of main: its runs alternate with the others, paired in one table)
//                           [--kinds search,searchNew,file,index,publish]   (what to measure; default all)
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { corpusRandom, corpusSkill, freshQueries } from "./corpus.mjs";
import { median, printTable, processCpuMs, prng } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = (pkg) => path.join(here, "..", "packages", pkg, "dist", "index.js");
const cli = path.join(here, "..", "packages", "cli", "dist", "cli.js");
const self = fileURLToPath(import.meta.url);
const argOf = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const numberArg = (name, fallback) => Number(argOf(name, fallback));

const QUERIES = [
  "deploy pipeline",
  "invoice customer report",
  "translate document",
  "backup archive",
  "monitor alert metric",
  "spreadsheet chart",
  "contract policy review",
  "classify ticket incident",
];
const FRESH = freshQueries();
const BIG_FILE = "references/big.md";
const GOALS = { searchP99Ms: 20, fileRatio: 0.7, indexTimeRatio: 1.2, publishP50Ms: 150 };

// ---- children ---------------------------------------------------------------------------------------------------

/** The floor: every body held in memory, answered with its content type and length. */
function staticChild(bodiesFile) {
  const bodies = JSON.parse(readFileSync(bodiesFile, "utf8"));
  const byPath = new Map(
    Object.entries(bodies).map(([k, v]) => [k, { type: v.type, bytes: Buffer.from(v.base64, "base64") }]),
  );
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const body = byPath.get(req.url);
      res.writeHead(body ? 200 : 404, {
        "content-type": body?.type ?? "text/plain",
        "content-length": String(body?.bytes.byteLength ?? 0),
      });
      res.end(body?.bytes);
    });
  });
  server.listen(0, "127.0.0.1", () =>
    console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })),
  );
}

/** Blob files in the FileBlobStore layout, written without fsync: seeding only (the server reads them back). */
class SeedingBlobs {
  constructor(root) {
    this.root = root;
    this.shards = new Set();
  }
  file(digest) {
    return path.join(this.root, "sha256", digest.slice(0, 2), digest);
  }
  async put(digest, bytes) {
    const shard = path.dirname(this.file(digest));
    if (!this.shards.has(shard)) mkdirSync(shard, { recursive: true, mode: 0o700 });
    this.shards.add(shard);
    writeFileSync(this.file(digest), bytes, { mode: 0o644 });
  }
  async get(digest) {
    try {
      return readFileSync(this.file(digest));
    } catch {
      return undefined;
    }
  }
  async remove(digest) {
    rmSync(this.file(digest), { force: true });
  }
  async discardUpload() {}
}

/** Publishes `size` corpus skills plus one with a 100 KB file through `RegistryStore.publish`, in process. */
async function seedChild(database, blobs, size) {
  const [{ RegistryStore }, { SqlDatabase }, { writeDeterministicZip }] = await Promise.all([
    import(dist("registry")),
    import(dist("sql")),
    import(dist("pack")),
  ]);
  const started = process.hrtime.bigint();
  const db = await SqlDatabase.open(database);
  const store = await RegistryStore.open({ database: db, blobs: new SeedingBlobs(blobs) });
  // On the store's own connection (the setting is per connection), through Kysely's connection API.
  if (db.dialect === "sqlite")
    await db.kysely
      .connection()
      .execute((c) => c.executeQuery({ sql: "pragma synchronous = OFF", parameters: [], query: { kind: "RawNode" } }));
  const made = await store.createToken({ user: "bench", scopes: ["admin"] });
  const actor = await store.authenticate(made.token);
  const zip = (name, files) =>
    writeDeterministicZip(files.map((f) => ({ path: `${name}/${f.path}`, mode: 0o644, bytes: Buffer.from(f.text) })));
  const random = corpusRandom(size);
  for (let i = 0; i < size; i++) {
    const skill = corpusSkill(random, i);
    await store.publish(await zip(skill.name, skill.files), {}, actor);
  }
  const big = wordText(prng(7), 100_000);
  await store.publish(
    await zip("big-file", [
      {
        path: "SKILL.md",
        text: "---\nname: big-file\ndescription: Has a 100 KB reference. Use when benchmarking.\n---\n# Big\n",
      },
      { path: BIG_FILE, text: big },
    ]),
    { version: "1.0.0" },
    actor,
  );
  await store.close();
  await db.close();
  console.log(
    JSON.stringify({ token: made.token, seconds: Number(process.hrtime.bigint() - started) / 1e9, skills: size + 1 }),
  );
}

function startChild(args, { cwd, match } = {}) {
  const proc = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    proc.stdout.on("data", (chunk) => {
      out += chunk;
      const found = match ? match(out) : out.split("\n").find((l) => l.startsWith("{"));
      if (found) resolve({ proc, info: match ? found : JSON.parse(found) });
    });
    proc.on("exit", (code) => reject(new Error(`${args.slice(-3).join(" ")} exited ${code}: ${out.slice(0, 500)}`)));
  });
}

function runChild(args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    proc.stdout.on("data", (chunk) => (out += chunk));
    proc.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop())) : reject(new Error(`seeding exited ${code}`)),
    );
  });
}

// ---- measuring --------------------------------------------------------------------------------------------------

/** `paths`: a list each connection goes through in turn, or a function giving every request its own path. */
function cannon(url, paths, seconds, connections) {
  const requests =
    typeof paths === "function"
      ? [{ method: "GET", setupRequest: (req) => ({ ...req, path: paths() }) }]
      : paths.map((p) => ({ method: "GET", path: p }));
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        requests,
        duration: seconds,
        connections,
        pipelining: 1,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

/** `rounds` pairs, the order flipped every round; per run: requests/s, mean and p99 latency, errors, CPU per request. */
async function alternate(servers, paths, { seconds, rounds, connections }) {
  const sides = Object.keys(servers);
  const runs = Object.fromEntries(sides.map((side) => [side, []]));
  const pathsOf = (side) => (side === "static" && paths.static ? paths.static : (paths.registry ?? paths));
  // Warm-up (the JIT compiles the request path): not counted.
  for (const side of sides) await cannon(servers[side].url, pathsOf(side), Math.max(2, seconds), connections);
  for (let round = 0; round < rounds; round++) {
    // Every side takes every place in turn (two sides: the order flips each round).
    const order = sides.map((_, i) => sides[(i + round) % sides.length]);
    for (const side of order) {
      const before = processCpuMs(servers[side].pid).self;
      const r = await cannon(servers[side].url, pathsOf(side), seconds, connections);
      const cpu = processCpuMs(servers[side].pid).self - before;
      runs[side].push({
        rps: r.requests.average,
        mean: r.latency.mean,
        p99: r.latency.p99,
        bad: r.errors + r.timeouts + r.non2xx,
        cpuUs: (cpu * 1000) / Math.max(1, r.requests.total),
      });
    }
  }
  const side = (rs) => ({
    rps: median(rs.map((r) => r.rps)),
    mean: median(rs.map((r) => r.mean)),
    p99: median(rs.map((r) => r.p99)),
    p99Max: Math.max(...rs.map((r) => r.p99)),
    cpuUs: median(rs.map((r) => r.cpuUs)),
    bad: rs.reduce((n, r) => n + r.bad, 0),
  });
  const ratios = (name) => ({
    rpsRatio: median(runs[name].map((r, i) => r.rps / runs.static[i].rps)),
    // A run that completed nothing has no mean latency: its time is unbounded, not 0.
    timeRatio: median(runs[name].map((r, i) => (r.rps === 0 ? Infinity : r.mean / runs.static[i].mean))),
  });
  return {
    static: side(runs.static),
    registry: side(runs.registry),
    ...ratios("registry"),
    ...(runs.baseline && { baseline: { ...side(runs.baseline), ...ratios("baseline") } }),
  };
}

/** `bytes` characters of words drawn by `random` (deflates about 3:1, like prose; not a zip-bomb ratio). */
function wordText(random, bytes) {
  const words = "deploy review invoice chart archive metric ticket policy table query cluster alert".split(" ");
  let s = "";
  while (s.length < bytes) s += `${words[Math.floor(random() * words.length)]}${random() < 0.1 ? ".\n" : " "}`;
  return s.slice(0, bytes);
}

/** A 1 MB upload: SKILL.md, two 256 KiB references of text, an 800 KiB binary asset; `i` makes each one new. */
async function bigPackage(writeDeterministicZip, i) {
  const random = prng(1000 + i);
  const text = (bytes) => wordText(random, bytes);
  const binary = Buffer.alloc(800 * 1024);
  for (let j = 0; j < binary.length; j += 4) binary.writeUInt32LE(Math.floor(random() * 2 ** 32), j);
  const md = `---\nname: publish-bench\ndescription: A 1 MB package published again and again (run ${i}). Use when benchmarking.\n---\n# Publish bench\n\n${text(3000)}\n`;
  return writeDeterministicZip([
    { path: "publish-bench/SKILL.md", mode: 0o644, bytes: Buffer.from(md) },
    { path: "publish-bench/references/a.md", mode: 0o644, bytes: Buffer.from(text(256 * 1024)) },
    { path: "publish-bench/references/b.md", mode: 0o644, bytes: Buffer.from(text(256 * 1024)) },
    { path: "publish-bench/assets/data.bin", mode: 0o644, bytes: binary },
  ]);
}

async function publishTimes(url, token, count, pid) {
  const { writeDeterministicZip } = await import(dist("pack"));
  const times = [];
  let size = 0;
  let bad = 0;
  let cpu = 0;
  for (let i = 0; i <= count; i++) {
    const archive = await bigPackage(writeDeterministicZip, i);
    size = archive.byteLength;
    const form = new FormData();
    form.set("archive", new Blob([archive]), "publish-bench.skill");
    const before = processCpuMs(pid).self;
    const started = process.hrtime.bigint();
    const res = await fetch(`${url}/api/v1/skills`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    await res.arrayBuffer();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (res.status !== 201) bad++;
    if (i > 0) {
      times.push(ms); // the first one warms the path up
      cpu += processCpuMs(pid).self - before;
    }
  }
  return { p50: median(times), max: Math.max(...times), size, bad, cpuMs: cpu / count };
}

/** The bytes an answer takes on the wire when the client accepts gzip (node:http: no decompression). */
function gzipBytes(url) {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { "accept-encoding": "gzip" } }, (res) => {
      let n = 0;
      res.on("data", (chunk) => (n += chunk.byteLength));
      res.on("end", () => resolve({ bytes: n, encoding: res.headers["content-encoding"] ?? "identity" }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function fetchBody(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return { type: res.headers.get("content-type") ?? "application/octet-stream", bytes: await res.arrayBuffer() };
}

// ---- one size ---------------------------------------------------------------------------------------------------

async function benchSize(size, options, work) {
  const dir = path.join(work, String(size));
  mkdirSync(dir, { recursive: true });
  let database = `sqlite:${path.join(dir, "registry.db")}`;
  if (options.db === "postgres") {
    const pgUrl = process.env.SKILLPORT_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
    const { default: pg } = await import("pg");
    const schema = `registry_bench_${process.pid}_${size}`;
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade; create schema ${schema}`);
    await client.end();
    const url = new URL(pgUrl);
    url.searchParams.set("schema", schema);
    database = url.href;
    options.cleanups.push(async () => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    });
  }
  const blobs = path.join(dir, "blobs");
  let seeded;
  if (options.seeded && options.db === "sqlite") {
    // A seeded database kept between runs (--seeded DIR): copied, its immutable blob files hard-linked.
    const kept = path.join(options.seeded, `sqlite-${size}`);
    if (!existsSync(path.join(kept, "seed.json"))) {
      mkdirSync(kept, { recursive: true });
      const made = await runChild([
        self,
        "--child",
        "seed",
        `sqlite:${path.join(kept, "registry.db")}`,
        path.join(kept, "blobs"),
        String(size),
      ]);
      writeFileSync(path.join(kept, "seed.json"), JSON.stringify(made));
    }
    copyFileSync(path.join(kept, "registry.db"), path.join(dir, "registry.db"));
    execFileSync("cp", ["-al", path.join(kept, "blobs"), blobs]);
    seeded = JSON.parse(readFileSync(path.join(kept, "seed.json"), "utf8"));
  } else seeded = await runChild([self, "--child", "seed", database, blobs, String(size)]);
  if (options.baseline && options.db !== "sqlite") throw new Error("--baseline needs --db sqlite (a copy per tree)");
  const baselineDatabase = `sqlite:${path.join(dir, "baseline.db")}`;
  if (options.baseline) copyFileSync(path.join(dir, "registry.db"), path.join(dir, "baseline.db"));
  // `registry serve` of a built CLI on a database, the blobs shared, printing its URL.
  const serve = (bin, db) =>
    startChild(
      [
        bin,
        "registry",
        "serve",
        "--db",
        db,
        "--blobs",
        blobs,
        "--port",
        "0",
        "--no-web-ui",
        "--rate-limit",
        "1000000000",
      ],
      { cwd: dir, match: (out) => /registry: (http:\/\/\S+)/.exec(out)?.[1] },
    );
  const registry = await serve(cli, database);
  options.children.push(registry.proc);
  const regUrl = registry.info;
  // The baseline serves a copy of the database (either tree may migrate its own) and the same blobs (it only reads;
  // publishes go to the registry under test).
  const baseline =
    options.baseline &&
    (await serve(path.join(path.resolve(options.baseline), "packages", "cli", "dist", "cli.js"), baselineDatabase));
  if (baseline) options.children.push(baseline.proc);

  const searchPaths = QUERIES.map((q) => `/api/v1/skills?q=${encodeURIComponent(q)}&limit=20`);
  const filePath = `/api/v1/skills/big-file/versions/1.0.0/files/${BIG_FILE}`;
  const indexPath = "/.well-known/agent-skills/index.json";
  const bodies = {};
  for (const p of [...searchPaths, filePath, indexPath]) {
    const body = await fetchBody(`${regUrl}${p}`);
    bodies[p] = { type: body.type, base64: Buffer.from(body.bytes).toString("base64") };
  }
  const indexGzip = await gzipBytes(`${regUrl}${indexPath}`);
  const bodiesFile = path.join(dir, "bodies.json");
  writeFileSync(bodiesFile, JSON.stringify(bodies));
  const floor = await startChild([self, "--child", "static", bodiesFile]);
  options.children.push(floor.proc);
  const servers = {
    static: { url: floor.info.url, pid: floor.proc.pid },
    registry: { url: regUrl, pid: registry.proc.pid },
    ...(baseline && { baseline: { url: baseline.info, pid: baseline.proc.pid } }),
  };
  const load = [os.loadavg()[0]];
  const bytes = (p) => Buffer.from(bodies[p].base64, "base64").byteLength;
  const measure = (kind, paths) => (options.kinds.includes(kind) ? alternate(servers, paths, options) : undefined);
  const search = await measure("search", searchPaths);
  // Every request a query not asked before in the run's recent past (more than the server keeps answers for); the
  // static side answers one search answer of the same kind.
  let next = 0;
  const fresh = () => `/api/v1/skills?q=${encodeURIComponent(FRESH[next++ % FRESH.length])}&limit=20`;
  const searchNew = await measure("searchNew", { registry: fresh, static: [searchPaths[0]] });
  const file = await measure("file", [filePath]);
  const index = await measure("index", [indexPath]);
  const publish = options.kinds.includes("publish")
    ? await publishTimes(regUrl, seeded.token, options.publishes, registry.proc.pid)
    : undefined;
  load.push(os.loadavg()[0]);
  registry.proc.kill();
  baseline?.proc.kill();
  floor.proc.kill();
  return {
    size: seeded.skills,
    seedSeconds: seeded.seconds,
    load,
    search: search && { ...search, bytes: Math.round(median(searchPaths.map(bytes))) },
    searchNew: searchNew && { ...searchNew, bytes: bytes(searchPaths[0]) },
    file: file && { ...file, bytes: bytes(filePath) },
    index: index && { ...index, bytes: bytes(indexPath) },
    indexGzip,
    publish,
  };
}

async function main() {
  const options = {
    sizes: String(argOf("sizes", "1000,10000")).split(",").map(Number),
    seconds: numberArg("seconds", 2),
    rounds: numberArg("rounds", 5),
    connections: numberArg("connections", 8),
    publishes: numberArg("publishes", 11),
    db: argOf("db", "sqlite"),
    seeded: argOf("seeded", undefined),
    baseline: argOf("baseline", undefined),
    kinds: String(argOf("kinds", "search,searchNew,file,index,publish")).split(","),
    children: [],
    cleanups: [],
  };
  const work = mkdtempSync(path.join(os.tmpdir(), "skillport-bench-registry-"));
  const results = [];
  try {
    for (const size of options.sizes) results.push(await benchSize(size, options, work));
  } finally {
    for (const p of options.children) p.kill();
    for (const c of options.cleanups) await c().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
  const ms = (x) => `${x.toFixed(1)} ms`;
  /** The HTTP measurements of one size, named as the tables name them. */
  const measured = (r) => [
    ["search (8 queries, limit 20)", r.search],
    ["search, each query new", r.searchNew],
    ["GET a 100 KB file", r.file],
    ["well-known index.json", r.index],
  ];
  const rows = [];
  for (const r of results) {
    for (const [kind, x] of measured(r)) {
      if (x === undefined) continue;
      rows.push([
        r.size,
        kind,
        `${x.bytes} B`,
        `${Math.round(x.registry.rps)} / ${Math.round(x.static.rps)}`,
        x.rpsRatio.toFixed(2),
        `${ms(x.registry.mean)} / ${ms(x.static.mean)}`,
        x.timeRatio.toFixed(2),
        `${x.registry.p99} (max ${x.registry.p99Max}) / ${x.static.p99}`,
        `${Math.round(x.registry.cpuUs)} / ${Math.round(x.static.cpuUs)}`,
        String(x.registry.bad),
      ]);
    }
  }
  printTable(
    `Registry (${options.db}) vs a static server with the same bytes: ${options.connections} connections, ` +
      `${options.rounds} pairs of ${options.seconds} s, medians; load ${results.map((r) => r.load.map((l) => l.toFixed(1)).join("→")).join(", ")}`,
    [
      "skills",
      "request",
      "answer",
      "req/s reg / static",
      "ratio",
      "mean reg / static",
      "time ratio",
      "p99 ms reg / static",
      "CPU µs/req reg / static",
      "errors",
    ],
    rows,
  );
  if (options.baseline) {
    const paired = [];
    for (const r of results)
      for (const [kind, x] of measured(r)) {
        if (x === undefined) continue;
        paired.push([
          r.size,
          kind,
          `${Math.round(x.registry.rps)} / ${Math.round(x.baseline.rps)}`,
          `${x.rpsRatio.toFixed(2)} / ${x.baseline.rpsRatio.toFixed(2)}`,
          `${x.timeRatio.toFixed(2)} / ${x.baseline.timeRatio.toFixed(2)}`,
          `${Math.round(x.registry.cpuUs)} / ${Math.round(x.baseline.cpuUs)}`,
          String(x.baseline.bad),
        ]);
      }
    printTable(
      `This tree vs the baseline ${options.baseline} in the same runs (each against the same static server)`,
      [
        "skills",
        "request",
        "req/s this / baseline",
        "ratio to static this / baseline",
        "time ratio this / baseline",
        "CPU µs/req this / baseline",
        "baseline errors",
      ],
      paired,
    );
  }
  for (const r of results)
    console.log(
      `${r.size} skills: index.json to a client accepting gzip: ${r.indexGzip.bytes} B (${r.indexGzip.encoding}); ` +
        `autocannon asks for the plain form`,
    );
  const published = results.filter((r) => r.publish !== undefined);
  if (published.length > 0)
    printTable(
      "Publish of a 1 MB package over HTTP (sequential) and seeding",
      ["skills", "archive", "publish p50", "max", "server CPU per publish", "failed", "seeding (in-process publish)"],
      published.map((r) => [
        r.size,
        `${(r.publish.size / 2 ** 20).toFixed(2)} MiB`,
        ms(r.publish.p50),
        ms(r.publish.max),
        ms(r.publish.cpuMs),
        String(r.publish.bad),
        `${r.seedSeconds.toFixed(1)} s`,
      ]),
    );
  const goals = [];
  for (const r of results) {
    if (r.search)
      goals.push([
        r.size,
        `search p99 ≤ ${GOALS.searchP99Ms} ms`,
        `${r.search.registry.p99} ms`,
        r.search.registry.p99 <= GOALS.searchP99Ms,
      ]);
    if (r.searchNew)
      goals.push([
        r.size,
        `search p99 ≤ ${GOALS.searchP99Ms} ms, each query new`,
        `${r.searchNew.registry.p99} ms`,
        r.searchNew.registry.p99 <= GOALS.searchP99Ms,
      ]);
    if (r.file)
      goals.push([
        r.size,
        `100 KB file ≥ ${GOALS.fileRatio} of static req/s`,
        r.file.rpsRatio.toFixed(2),
        r.file.rpsRatio >= GOALS.fileRatio,
      ]);
    if (r.index)
      goals.push([
        r.size,
        `index.json ≤ ${GOALS.indexTimeRatio}× static time`,
        `${r.index.timeRatio.toFixed(2)}×`,
        r.index.timeRatio <= GOALS.indexTimeRatio,
      ]);
    const bad = [r.search, r.searchNew, r.file, r.index].reduce((n, x) => n + (x?.registry.bad ?? 0), 0);
    goals.push([r.size, "0 errors", String(bad + (r.publish?.bad ?? 0)), bad + (r.publish?.bad ?? 0) === 0]);
    if (r.publish)
      goals.push([
        r.size,
        `publish 1 MB p50 ≤ ${GOALS.publishP50Ms} ms`,
        ms(r.publish.p50),
        r.publish.p50 <= GOALS.publishP50Ms,
      ]);
  }
  printTable(
    "Goals (issue 25)",
    ["skills", "goal", "measured", "met"],
    goals.map((g) => [g[0], g[1], g[2], g[3] ? "yes" : "NO"]),
  );
  console.log(JSON.stringify({ options: { ...options, children: undefined, cleanups: undefined }, results }));
}

if (process.argv[2] === "--child") {
  const [mode, ...rest] = process.argv.slice(3);
  if (mode === "static") staticChild(rest[0]);
  else await seedChild(rest[0], rest[1], Number(rest[2]));
} else await main();
