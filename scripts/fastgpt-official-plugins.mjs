#!/usr/bin/env node
// Runs every tool of a checkout of FastGPT's official plugins through `skillport plugin build`, `check` and `run`,
// unchanged, and prints one table. On demand only (not part of `npm test`): it installs each tool's npm
// dependencies from the registry.
//
//   node scripts/fastgpt-official-plugins.mjs <checkout> [--work <dir>] [--only a,b] [--no-install] [--out file.md]
//
// <checkout> is the repository root (with packages/tools/*). Each tool is copied into the work dir (default: a
// temp dir) so the checkout is never written; its dependencies are installed there with `npm install`, the
// pnpm `catalog:` versions resolved from pnpm-workspace.yaml. zod and the SDK are not installed: the host
// provides them (a dependency that needs another zod major gets its own, see docs/plugins.md).
//
// Run: every tool (each child of a tool set) is called once with an input and secrets made up from its JSON
// Schemas, network isolated. Outcomes: "ok" (a response), "network" (the tool failed because it could not reach
// the network: a clean error), "error" (any other clean tool error, e.g. the made-up input was refused by the
// tool's own checks), "crash" (worker crash, start failure, heap limit: a host problem).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, "..", "packages", "cli", "dist", "main.js");

function parseArgs(argv) {
  const args = { checkout: undefined, work: undefined, only: undefined, install: true, out: undefined, timeout: 30 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--work") args.work = argv[++i];
    else if (arg === "--only") args.only = new Set(argv[++i].split(","));
    else if (arg === "--no-install") args.install = false;
    else if (arg === "--out") args.out = argv[++i];
    else if (arg === "--timeout") args.timeout = Number(argv[++i]);
    else if (!arg.startsWith("--") && args.checkout === undefined) args.checkout = arg;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (args.checkout === undefined) throw new Error("usage: fastgpt-official-plugins.mjs <checkout> [--work dir] [--only a,b] [--no-install] [--out file.md]");
  return args;
}

/** The `catalog:` block of pnpm-workspace.yaml (flat `name: version` lines). */
function readCatalog(checkout) {
  const file = path.join(checkout, "pnpm-workspace.yaml");
  const catalog = {};
  if (!existsSync(file)) return catalog;
  let inside = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (/^catalog:\s*$/.test(line)) inside = true;
    else if (/^\S/.test(line)) inside = false;
    else if (inside) {
      const match = /^\s+["']?([^"':]+(?::[^"':]+)?)["']?:\s*["']?([^"'\s]+)["']?\s*$/.exec(line);
      if (match) catalog[match[1]] = match[2];
    }
  }
  return catalog;
}

/**
 * The versions pnpm-lock.yaml pinned for a tool's direct dependencies (`importers: packages/tools/<name>:`), so the
 * install reproduces what upstream tested (the newest version in range may need packages a registry lacks).
 */
function readLocked(checkout, name) {
  const file = path.join(checkout, "pnpm-lock.yaml");
  const locked = {};
  if (!existsSync(file)) return locked;
  const lines = readFileSync(file, "utf8").split("\n");
  const start = lines.indexOf(`  packages/tools/${name}:`);
  if (start === -1) return locked;
  let section = "";
  let dep = "";
  for (const line of lines.slice(start + 1)) {
    if (/^ {0,2}\S/.test(line)) break;
    const header = /^ {4}(\w+):\s*$/.exec(line);
    if (header) section = header[1];
    const key = /^ {6}'?([^':]+(?::[^':]+)?)'?:\s*$/.exec(line);
    if (key) dep = key[1];
    const version = /^ {8}version: (\S+)/.exec(line);
    if (version && section === "dependencies" && dep) locked[dep] = version[1].replace(/\(.*$/, "");
  }
  return locked;
}

/** Modules the host provides (never installed per tool). */
const PROVIDED = new Set(["zod", "@fastgpt-plugin/sdk-factory", "@fastgpt-plugin/cli"]);

/** Installs a tool's runtime dependencies (not its dev tools). Returns a short status. */
function install(dir, catalog, locked) {
  const pkgFile = path.join(dir, "package.json");
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
  const deps = Object.entries(pkg.dependencies ?? {}).filter(([name]) => !PROVIDED.has(name));
  if (deps.length === 0) return { status: "none" };
  const resolved = Object.fromEntries(
    deps.map(([name, version]) => [name, /^\d/.test(locked[name] ?? "") ? locked[name] : version.startsWith("catalog:") ? (catalog[name] ?? "*") : version]),
  );
  writeFileSync(pkgFile, JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: pkg.type, dependencies: resolved }, null, 2));
  // --ignore-scripts: no dependency's install script runs on this machine (the tools need none at run time).
  const npmInstall = () => spawnSync("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], { cwd: dir, encoding: "utf8", timeout: 600_000 });
  let result = npmInstall();
  let note = "";
  // A registry may lack the pinned version of a direct dependency: take the lowest one it has at or above it.
  const missing = /No matching version found for (@?[^@\s]+)@/.exec(result.stderr ?? "")?.[1];
  if (result.status !== 0 && missing !== undefined && Object.hasOwn(resolved, missing)) {
    const substitute = lowestAtLeast(missing, resolved[missing]);
    if (substitute !== undefined) {
      resolved[missing] = substitute;
      note = `${missing}@${substitute} substituted`;
      writeFileSync(pkgFile, JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: pkg.type, dependencies: resolved }, null, 2));
      result = npmInstall();
    }
  }
  if (result.status === 0) return { status: `${deps.length} deps`, ...(note ? { detail: note } : {}) };
  return { status: "install failed", detail: (result.stderr || result.stdout).trim().split("\n").slice(-2).join(" ") };
}

/** The lowest published version of `name` at or above the (exact or ^/~) version given, from `npm view`. */
function lowestAtLeast(name, wanted) {
  const floor = /(\d+)\.(\d+)\.(\d+)/.exec(wanted);
  if (!floor) return undefined;
  const view = spawnSync("npm", ["view", name, "versions", "--json"], { encoding: "utf8", timeout: 60_000 });
  const versions = parseJson(view.stdout ?? "");
  if (!Array.isArray(versions)) return undefined;
  const key = (v) => v.split(/[.-]/).slice(0, 3).map(Number);
  const atLeast = (v) => {
    const [a, b, c] = key(v);
    const [x, y, z] = floor.slice(1).map(Number);
    return a !== x ? a > x : b !== y ? b > y : c >= z;
  };
  return versions.filter((v) => /^\d+\.\d+\.\d+$/.test(v) && atLeast(v))[0];
}

function skillport(args, options = {}) {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 300_000, maxBuffer: 64 * 1024 * 1024, ...options });
  return { code: result.status ?? -1, out: result.stdout ?? "", err: result.stderr ?? "" };
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A value that satisfies a JSON Schema well enough to reach the tool's code. */
function sample(schema, key = "") {
  if (!schema || typeof schema !== "object") return "test";
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && variants.length > 0) return sample(variants.find((v) => v.type !== "null") ?? variants[0], key);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const out = {};
      for (const name of schema.required ?? []) out[name] = sample(schema.properties?.[name], name);
      return out;
    }
    case "array":
      return schema.minItems > 0 ? [sample(schema.items, key)] : [];
    case "number":
    case "integer":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return false;
    default: {
      if (schema.format === "uri" || /url/i.test(key)) return "https://example.com/";
      if (schema.format === "email" || /mail/i.test(key)) return "user@example.com";
      const min = typeof schema.minLength === "number" ? schema.minLength : 0;
      return "test".padEnd(Math.max(4, min), "x");
    }
  }
}

const NETWORK = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ECONNRESET|getaddrinfo|fetch failed|network|socket hang up|connect|timed? ?out|Timeout|请求|网络/i;
const CRASH = new Set(["PLUGIN_WORKER_CRASHED", "PLUGIN_WORKER_START_FAILED", "PLUGIN_HEAP_LIMIT"]);

function classifyRun(result) {
  const lines = result.out.trim().split("\n").filter(Boolean).map(parseJson).filter(Boolean);
  const last = lines.at(-1);
  if (last?.type === "response") return { outcome: "ok", detail: "" };
  if (last?.type === "error") {
    if (CRASH.has(last.code)) return { outcome: "crash", detail: `${last.code}: ${last.data}` };
    if (last.code === "PLUGIN_TIMEOUT") return { outcome: "network", detail: `${last.code} (waiting on the isolated network)` };
    if (NETWORK.test(last.data)) return { outcome: "network", detail: last.data };
    return { outcome: "error", detail: `${last.code}: ${last.data}` };
  }
  return { outcome: "crash", detail: `no result (exit ${result.code}): ${result.err.trim().split("\n").at(-1) ?? ""}` };
}

function runTool(dir, manifest, timeout) {
  const tools = manifest.children ? manifest.children.map((c) => ({ id: c.id, inputSchema: c.inputSchema })) : [{ id: "tool", inputSchema: manifest.inputSchema }];
  const secrets = sample(manifest.secretSchema ?? { type: "object" });
  return tools.map((tool) => {
    const args = ["plugin", "run", dir, "--tool", tool.id, "--json", "--timeout", String(timeout), "--input", JSON.stringify(sample(tool.inputSchema)), "--secrets", JSON.stringify(secrets)];
    return { id: tool.id, ...classifyRun(skillport(args)) };
  });
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(cli)) throw new Error(`build the CLI first (npx tsc -b): ${cli} is missing`);
  const toolsDir = path.join(path.resolve(args.checkout), "packages", "tools");
  const catalog = readCatalog(path.resolve(args.checkout));
  const work = args.work ? path.resolve(args.work) : mkdtempSync(path.join(tmpdir(), "fastgpt-official-"));
  const names = readdirSync(toolsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(toolsDir, e.name, "package.json")))
    .map((e) => e.name)
    .filter((name) => !args.only || args.only.has(name))
    .sort((a, b) => a.localeCompare(b));
  const rows = [];
  for (const name of names) {
    const dir = path.join(work, name);
    cpSync(path.join(toolsDir, name), dir, { recursive: true, filter: (src) => !/[\\/](node_modules|dist)$/.test(src) });
    const started = Date.now();
    const deps = args.install ? install(dir, catalog, readLocked(path.resolve(args.checkout), name)) : { status: "skipped" };
    const build = skillport(["plugin", "build", "--entry", dir, "--json"]);
    const built = parseJson(build.out);
    const row = { name, deps: deps.status, build: build.code === 0 ? "ok" : "FAIL", check: "-", errors: 0, warnings: 0, runs: [], notes: [] };
    if (deps.detail) row.notes.push(deps.detail);
    if (build.code !== 0) {
      row.notes.push((built?.diagnostics ?? []).filter((d) => d.severity === "error").map((d) => `${d.code} ${d.message}`).join("; ") || build.err.trim().split("\n").at(-1));
    } else {
      const check = parseJson(skillport(["plugin", "check", "--entry", dir, "--json"]).out);
      const diagnostics = check?.diagnostics ?? [];
      row.errors = diagnostics.filter((d) => d.severity === "error").length;
      row.warnings = diagnostics.filter((d) => d.severity === "warning").length;
      row.check = check?.ok ? "ok" : "FAIL";
      const codes = [...new Set(diagnostics.map((d) => `${d.severity === "error" ? "E" : "W"}:${d.code}`))];
      if (codes.length > 0) row.notes.push(codes.join(" "));
      const manifest = parseJson(readFileSync(path.join(dir, "dist", "manifest.json"), "utf8"));
      row.runs = runTool(dir, manifest, args.timeout);
    }
    row.seconds = Math.round((Date.now() - started) / 1000);
    rows.push(row);
    const runs = row.runs.map((r) => `${r.id}=${r.outcome}`).join(" ");
    console.error(`${name}: deps ${row.deps}, build ${row.build}, check ${row.check} (${row.errors}E/${row.warnings}W), run ${runs} [${row.seconds}s]`);
  }
  const report = render(rows);
  if (args.out) writeFileSync(args.out, report);
  console.log(report);
  process.exitCode = rows.some((r) => r.build !== "ok" || r.check !== "ok" || r.runs.some((x) => x.outcome === "crash")) ? 1 : 0;
}

function render(rows) {
  const count = (pred) => rows.filter(pred).length;
  const runs = rows.flatMap((r) => r.runs);
  const outcomes = ["ok", "network", "error", "crash"].map((o) => `${o} ${runs.filter((r) => r.outcome === o).length}`).join(", ");
  const lines = [
    `Tools: ${rows.length}. Build ok: ${count((r) => r.build === "ok")}. Check ok (no errors): ${count((r) => r.check === "ok")}; ` +
      `warnings in ${count((r) => r.warnings > 0)}. Runs (one per tool or child, ${runs.length}): ${outcomes}.`,
    "",
    "| tool | deps | build | check | run (per tool/child) | notes |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of rows) {
    const run = r.runs.map((x) => (r.runs.length === 1 ? x.outcome : `${x.id}: ${x.outcome}`)).join(", ") || "-";
    const details = r.runs.filter((x) => x.outcome !== "ok").map((x) => `${r.runs.length === 1 ? "" : `${x.id}: `}${x.detail}`);
    const notes = [...r.notes, ...details].join("; ").replace(/\|/g, "\\|").replace(/\s+/g, " ").slice(0, 300);
    lines.push(`| ${r.name} | ${r.deps} | ${r.build} | ${r.check}${r.warnings ? ` (${r.warnings}W)` : ""} | ${run} | ${notes} |`);
  }
  return lines.join("\n") + "\n";
}

main();
