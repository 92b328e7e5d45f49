#!/usr/bin/env node
// Runs every tool of a checkout of FastGPT's official plugins through `skillport plugin build`, `check` and `run`,
// unchanged, and prints one table. On demand only (not part of `npm test`): it installs each tool's npm
// dependencies from the registry.
//
//   node scripts/fastgpt-official-plugins.mjs <checkout> [--layout per-tool|flat] [--work <dir>] [--only a,b]
//                                            [--no-install] [--own-tests] [--out file.md]
//
// <checkout> is the repository root (with packages/tools/*). Each tool is copied into the work dir (default: a
// temp dir) so the checkout is never written; its dependencies are installed there with `npm install`, the
// pnpm `catalog:` versions resolved from pnpm-workspace.yaml. zod and the SDK are not installed: the host
// provides them (a dependency that needs another zod major gets its own, see docs/plugins.md).
//
// --layout per-tool (default): each tool gets its own node_modules (`npm install` in the tool's folder).
// --layout flat: the tools are npm workspaces of one root (<work>/tools/<name>) and one `npm install` there hoists
// their dependencies into <work>/node_modules, above the tools, as npm, pnpm (hoisted) and bun leave a monorepo;
// optional packages nobody depends on (pg-native, supports-color, aws4, …) are absent.
//
// Run: every tool (each child of a tool set) is called once with an input and secrets made up from its JSON
// Schemas, network isolated. Outcomes: "ok" (a response), "network" (the tool failed because it could not reach
// the network: a clean error), "error" (any other clean tool error, e.g. the made-up input was refused by the
// tool's own checks), "crash" (worker crash, start failure, heap limit: a host problem).
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, "..", "packages", "cli", "dist", "main.js");

function parseArgs(argv) {
  const args = {
    checkout: undefined,
    work: undefined,
    only: undefined,
    install: true,
    out: undefined,
    timeout: 30,
    ownTests: false,
    layout: "per-tool",
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--work") args.work = argv[++i];
    else if (arg === "--only") args.only = new Set(argv[++i].split(","));
    else if (arg === "--no-install") args.install = false;
    else if (arg === "--own-tests") args.ownTests = true;
    else if (arg === "--out") args.out = argv[++i];
    else if (arg === "--timeout") args.timeout = Number(argv[++i]);
    else if (arg === "--layout") args.layout = argv[++i];
    else if (!arg.startsWith("--") && args.checkout === undefined) args.checkout = arg;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (args.checkout === undefined || !["per-tool", "flat"].includes(args.layout)) {
    throw new Error(
      "usage: fastgpt-official-plugins.mjs <checkout> [--layout per-tool|flat] [--work dir] [--only a,b] [--no-install] [--own-tests] [--out file.md]",
    );
  }
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

/**
 * Rewrites a tool's package.json to its runtime dependencies (not its dev tools), at the versions upstream locked.
 * Returns them, or undefined when the tool has none. `name` renames the package (workspaces need npm-valid names).
 */
function pinDependencies(dir, catalog, locked, name) {
  const pkgFile = path.join(dir, "package.json");
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
  const deps = Object.entries(pkg.dependencies ?? {}).filter(([dep]) => !PROVIDED.has(dep));
  const resolved = Object.fromEntries(
    deps.map(([dep, version]) => [
      dep,
      /^\d/.test(locked[dep] ?? "") ? locked[dep] : version.startsWith("catalog:") ? (catalog[dep] ?? "*") : version,
    ]),
  );
  writePackage(pkgFile, {
    name: name ?? pkg.name,
    version: pkg.version,
    private: true,
    type: pkg.type,
    dependencies: resolved,
  });
  return deps.length === 0 ? undefined : resolved;
}

function writePackage(file, pkg) {
  writeFileSync(file, JSON.stringify(pkg, null, 2));
}

/**
 * `npm install` in `cwd`. A registry may lack the pinned version of a direct dependency: `substitute(name)` then
 * moves the packages that pin it to the lowest version it has at or above the pin, and the install is retried.
 */
function npmInstall(cwd, substitute) {
  // --ignore-scripts: no dependency's install script runs on this machine (the tools need none at run time).
  const run = () =>
    spawnSync("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], {
      cwd,
      encoding: "utf8",
      timeout: 1_200_000,
    });
  let result = run();
  const notes = [];
  for (let attempt = 0; attempt < 5 && result.status !== 0; attempt++) {
    const missing = /No matching version found for (@?[^@\s]+)@/.exec(result.stderr ?? "")?.[1];
    const note = missing === undefined ? undefined : substitute(missing);
    if (note === undefined) break;
    notes.push(note);
    result = run();
  }
  if (result.status === 0) return { ok: true, notes };
  return { ok: false, notes, detail: (result.stderr || result.stdout).trim().split("\n").slice(-2).join(" ") };
}

/** Pins `name` in the package.json files given to the lowest published version at or above their pin. */
function substituteIn(pkgFiles, name) {
  const pinned = pkgFiles
    .map((file) => [file, JSON.parse(readFileSync(file, "utf8"))])
    .filter(([, pkg]) => Object.hasOwn(pkg.dependencies ?? {}, name));
  if (pinned.length === 0) return undefined;
  const version = lowestAtLeast(name, pinned[0][1].dependencies[name]);
  if (version === undefined) return undefined;
  for (const [file, pkg] of pinned)
    writePackage(file, { ...pkg, dependencies: { ...pkg.dependencies, [name]: version } });
  return `${name}@${version} substituted`;
}

/** Per-tool layout: installs a tool's runtime dependencies into its own node_modules. Returns a short status. */
function install(dir, catalog, locked) {
  const resolved = pinDependencies(dir, catalog, locked);
  if (resolved === undefined) return { status: "none" };
  const pkgFile = path.join(dir, "package.json");
  const result = npmInstall(dir, (name) => substituteIn([pkgFile], name));
  const note = result.notes.join("; ");
  if (result.ok) return { status: `${Object.keys(resolved).length} deps`, ...(note ? { detail: note } : {}) };
  return { status: "install failed", detail: result.detail };
}

/**
 * Flat layout: every tool becomes a workspace of `<work>` and one install hoists all dependencies into
 * `<work>/node_modules` (a version two tools disagree on stays nested in the tool that needs the other one).
 * Returns each tool's status by name.
 */
function installFlat(work, tools, checkout, catalog) {
  const statuses = new Map();
  const pkgFiles = [];
  for (const { name, dir } of tools) {
    // Workspace names must be valid npm names (several upstream names have capitals) and unique.
    const resolved = pinDependencies(
      dir,
      catalog,
      readLocked(checkout, name),
      `fastgpt-official-${name.toLowerCase()}`,
    );
    statuses.set(name, resolved === undefined ? "none" : `${Object.keys(resolved).length} deps`);
    pkgFiles.push(path.join(dir, "package.json"));
  }
  writePackage(path.join(work, "package.json"), {
    name: "fastgpt-official-flat",
    private: true,
    workspaces: tools.map(({ dir }) => path.relative(work, dir)),
  });
  const result = npmInstall(work, (name) => substituteIn(pkgFiles, name));
  console.error(
    `flat install in ${work}: ${result.ok ? "ok" : `failed: ${result.detail}`}${result.notes.length ? ` (${result.notes.join("; ")})` : ""}`,
  );
  const substituted = new Map(result.notes.map((note) => [note.replace(/@[^@]*$/, ""), note]));
  return new Map(
    tools.map(({ name, dir }) => {
      const deps = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")).dependencies ?? {};
      const notes = Object.keys(deps).flatMap((dep) => (substituted.has(dep) ? [substituted.get(dep)] : []));
      return [
        name,
        result.ok
          ? { status: statuses.get(name), ...(notes.length ? { detail: notes.join("; ") } : {}) }
          : { status: "install failed", detail: result.detail },
      ];
    }),
  );
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
  const result = spawnSync(process.execPath, [cli, ...args], {
    encoding: "utf8",
    timeout: 300_000,
    maxBuffer: 64 * 1024 * 1024,
    ...options,
  });
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
  if (Array.isArray(variants) && variants.length > 0)
    return sample(variants.find((v) => v.type !== "null") ?? variants[0], key);
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

/**
 * Inputs and secrets written by hand where made-up ones stop at the tool's own checks (a required "one of", a URL
 * scheme, a key prefix). Only values of our own; hosts are example.com names, which the isolated network cannot reach.
 */
const PDF_BASE64 = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n").toString("base64");
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const CURATED = {
  airtable: {
    inputs: {
      createRecord: { baseId: "appA", tableIdOrName: "T", fields: { Name: "x" } },
      updateRecord: { baseId: "appA", tableIdOrName: "T", recordId: "rec1", fields: { Name: "x" } },
    },
  },
  base64Decode: {
    inputs: {
      toFile: { base64: PDF_BASE64 },
      toImage: { base64: PNG_BASE64 },
      toText: { base64: Buffer.from("hello").toString("base64") },
    },
  },
  dailyHot: { inputs: { tool: { sources: ["weibo"] } } },
  // clickhouse reads `url`, a secret the tool set's shared schema does not declare (passed through, as upstream).
  dbops: {
    secrets: {
      host: "db.example.com",
      port: 1521,
      username: "user-0000",
      password: "p-0000",
      database: "orclpdb1",
      url: "http://ch.example.com:8123",
    },
  },
  dalle3: {
    secrets: { url: "https://api.example.com", authorization: "sk-test-0000" },
    inputs: { tool: { prompt: "a cat" } },
  },
  excelOperation: { inputs: { tool: { file: "https://files.example.com/a.xlsx", script: "return 1" } } },
  jsonProcessor: {
    inputs: {
      jsonPath: { json: '{"a":{"b":[1,2,3]}}', path: "$.a.b[1]" },
      structure: {
        json: '{"a":1,"b":{"c":2}}',
        fields: [
          { name: "a", path: "$.a" },
          { name: "c", path: "$.b.c" },
        ],
      },
      jsonPatch: { json: '{"a":1}', operations: '[{"op":"replace","path":"/a","value":2}]' },
    },
  },
  mineru: {
    secrets: { base_url: "https://mineru.example.com", token: "t-0000" },
    inputs: {
      parseLocal: { files: ["https://files.example.com/a.pdf"] },
      parseRemote: { files: ["https://files.example.com/a.pdf"] },
    },
  },
  minimax: {
    inputs: {
      tts: {
        text: "hi",
        model: "speech-2.5-hd-preview",
        voice_id: "male-qn-qingse",
        speed: 1,
        vol: 1,
        pitch: 0,
        emotion: "happy",
        english_normalization: false,
      },
    },
  },
  mojiWeather: {
    inputs: {
      tool: { province: "北京", city: "北京", towns: "朝阳", start_time: "2026-01-01", end_time: "2026-01-02" },
    },
  },
  mongodb: {
    secrets: { connectionUri: "mongodb://db.example.com:27017", database: "test" },
    inputs: {
      find: { collection: "c" },
      insert: { collection: "c", documents: '[{"a":1}]' },
      update: { collection: "c", filter: '{"a":1}', update: '{"$set":{"a":2}}' },
      delete: { collection: "c", filter: '{"a":1}' },
      aggregate: { collection: "c", pipeline: '[{"$match":{}}]' },
    },
  },
  neo4j: {
    secrets: { uri: "neo4j://db.example.com:7687", username: "user-0000", password: "p-0000" },
    inputs: { read: { cypher: "RETURN 1" }, write: { cypher: "CREATE (n)" } },
  },
  notion: {
    secrets: { integrationToken: "ntn_0000000000" },
    inputs: {
      getPage: { pageId: "p" },
      getBlockChildren: { blockId: "b" },
      queryDataSource: { dataSourceId: "d" },
      createPage: { parentType: "page_id", parentId: "p", propertiesJson: "{}" },
    },
  },
  searchInfinity: { secrets: { apiKey: "k-0000" }, inputs: { tool: { query: "zod", searchType: "web" } } },
  // url is an undeclared (legacy) input key the tool reads.
  searchXNG: { inputs: { tool: { query: "zod", url: "https://searx.example.com/search" } } },
  smtpEmail: {
    secrets: {
      smtpHost: "smtp.example.com",
      smtpPort: "465",
      SSL: true,
      smtpUser: "u@example.com",
      smtpPass: "p-0000",
    },
    inputs: { tool: { fromName: "T", to: "a@example.com", subject: "s", content: "c" } },
  },
  SoMarkDocumentParser: {
    secrets: { baseUrl: "https://somark.example.com", apiKey: "k-0000" },
    inputs: { tool: { file: ["https://files.example.com/a.pdf"] } },
  },
  tavily: {
    secrets: { tavilyApiKey: "tvly-00000000000000000000000000" },
    inputs: {
      crawl: { url: "https://example.com" },
      extract: { urls: "https://example.com" },
      map: { url: "https://example.com" },
      search: { query: "zod" },
    },
  },
  wechatOfficialAccount: {
    secrets: { appId: "wx0000000000", secret: "s-0000000000" },
    inputs: {
      publishDraft: { accessToken: "t-0000", mediaId: "m" },
      uploadMarkdownToDraft: { markdownContent: "# t", coverImage: "https://img.example.com/a.png", title: "t" },
      uploadPermanentMaterial: { type: "image", mediaUrl: "https://img.example.com/a.png" },
    },
  },
  wecomSmartSheet: {
    inputs: Object.fromEntries(
      [
        "wecomSmartSheetFieldAdvanced",
        "wecomSmartSheetFieldSimple",
        "wecomSmartSheetRecordAdvanced",
        "wecomSmartSheetRecordSimple",
        "wecomSmartSheetView",
      ]
        .map((id) => [id, { accessToken: "t", docid: "d", sheet_id: "s", action: "list" }])
        .concat([["wecomSmartSheetTable", { accessToken: "t", docid: "d", action: "get" }]]),
    ),
  },
  WeWorkWebhook: {
    inputs: { tool: { webhookUrl: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k", message: "hi" } },
  },
  sshConnection: { secrets: { host: "ssh.example.com", port: 22, username: "u", password: "p-0000" } },
  youtube: { inputs: { getSubtitle: { videoUrl: "https://www.youtube.com/watch?v=dQw4w9WgXcQ" } } },
};

/** What `--services` gives every run: the calls FastGPT's local debug host answers. */
const SERVICES = {
  user: {
    username: "tester",
    contact: null,
    memberName: "Tester",
    orgs: [{ pathId: "o1", name: "Org" }],
    groups: [{ name: "g" }],
  },
  wecomCorpToken: { access_token: "corp-token-0000", expires_in: 7200 },
};

/** Tools that replace their fetch error with a message of their own (read in their source). */
const OWN_NETWORK_MESSAGES = { mojiWeather: /No weather data available/ };

const NETWORK =
  /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ECONNRESET|ETIMEDOUT|getaddrinfo|fetch failed|network|socket hang up|connection (?:error|refused|failed|closed|timed? ?out)|(?:failed|unable|could not) to connect|could not connect|timed? ?out|No response received|Connection is closed|No routing servers available|Failed to download|请求失败|网络/i;
const CRASH = new Set(["PLUGIN_WORKER_CRASHED", "PLUGIN_WORKER_START_FAILED", "PLUGIN_HEAP_LIMIT"]);

function classifyRun(result, name) {
  const lines = result.out.trim().split("\n").filter(Boolean).map(parseJson).filter(Boolean);
  const last = lines.at(-1);
  if (last?.type === "response") return { outcome: "ok", detail: "" };
  if (last?.type === "error") {
    if (CRASH.has(last.code)) return { outcome: "crash", detail: `${last.code}: ${last.data}` };
    if (last.code === "PLUGIN_TIMEOUT")
      return { outcome: "network", detail: `${last.code} (waiting on the isolated network)` };
    // Match the tool's message, not the `tool "…" of plugin "…":` prefix (a plugin may be named "sshConnection").
    const message = last.data.replace(/^tool "[^"]*" of plugin "[^"]*": /, "");
    if (NETWORK.test(message) || OWN_NETWORK_MESSAGES[name]?.test(message))
      return { outcome: "network", detail: last.data };
    return { outcome: "error", detail: `${last.code}: ${last.data}` };
  }
  return { outcome: "crash", detail: `no result (exit ${result.code}): ${result.err.trim().split("\n").at(-1) ?? ""}` };
}

function runTool(name, dir, manifest, timeout) {
  const tools = manifest.children
    ? manifest.children.map((c) => ({ id: c.id, inputSchema: c.inputSchema }))
    : [{ id: "tool", inputSchema: manifest.inputSchema }];
  const curated = CURATED[name] ?? {};
  const secrets = { ...sample(manifest.secretSchema ?? { type: "object" }), ...curated.secrets };
  const uploads = path.join(dir, "..", `${name}.uploads`);
  return tools.map((tool) => {
    const input = { ...sample(tool.inputSchema), ...curated.inputs?.[tool.id] };
    const args = [
      "plugin",
      "run",
      dir,
      "--tool",
      tool.id,
      "--json",
      "--timeout",
      String(timeout),
      "--input",
      JSON.stringify(input),
      "--secrets",
      JSON.stringify(secrets),
    ];
    args.push("--upload-dir", uploads, "--services", JSON.stringify(SERVICES));
    return { id: tool.id, ...classifyRun(skillport(args), name) };
  });
}

const repoModules = path.join(here, "..", "node_modules");

/**
 * The tool's own vitest suite with the SDK installed the way docs/plugins.md says (`@fastgpt-plugin/sdk-factory`
 * as an npm alias of `@skillport/plugin`), plus `@skillport/plugin` itself (a test that imports dist/index.js needs
 * the name the build leaves external), zod and vitest from this repository.
 */
function ownTests(dir) {
  const hasTests = (d) =>
    readdirSync(d, { withFileTypes: true }).some((e) =>
      e.isDirectory()
        ? e.name !== "node_modules" && e.name !== "dist" && hasTests(path.join(d, e.name))
        : /\.(test|spec)\.ts$/.test(e.name),
    );
  if (!hasTests(dir)) return "none";
  const links = {
    "@fastgpt-plugin/sdk-factory": path.join(here, "..", "packages", "plugin"),
    "@skillport/plugin": path.join(here, "..", "packages", "plugin"),
    zod: path.join(repoModules, "zod"),
    vitest: path.join(repoModules, "vitest"),
  };
  for (const [name, target] of Object.entries(links)) {
    const link = path.join(dir, "node_modules", ...name.split("/"));
    if (existsSync(link)) continue;
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(target, link, "dir");
  }
  const result = spawnSync(process.execPath, [path.join(repoModules, "vitest", "vitest.mjs"), "run"], {
    cwd: dir,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, NO_COLOR: "1", CI: "1" },
  });
  const text = `${result.stdout}\n${result.stderr}`;
  const passed = /Tests\s+(?:(\d+) failed \| )?(\d+) passed/.exec(text);
  if (passed) return passed[1] ? `${passed[2]} passed, ${passed[1]} failed` : `${passed[2]} passed`;
  if (/Test Files\s+\d+ skipped/.test(text)) return "skipped by the suite";
  if (/Test Files\s+\d+ failed/.test(text)) return "suite fails to load";
  return /No test files found/.test(text) ? "none" : "did not run";
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
  const checkout = path.resolve(args.checkout);
  const dirOf = (name) => (args.layout === "flat" ? path.join(work, "tools", name) : path.join(work, name));
  for (const name of names)
    cpSync(path.join(toolsDir, name), dirOf(name), {
      recursive: true,
      filter: (src) => !/[\\/](node_modules|dist)$/.test(src),
    });
  const flat =
    args.layout === "flat" && args.install
      ? installFlat(
          work,
          names.map((name) => ({ name, dir: dirOf(name) })),
          checkout,
          catalog,
        )
      : undefined;
  const rows = [];
  for (const name of names) {
    const dir = dirOf(name);
    const started = Date.now();
    const deps = !args.install
      ? { status: "skipped" }
      : (flat?.get(name) ?? install(dir, catalog, readLocked(checkout, name)));
    const build = skillport(["plugin", "build", "--entry", dir, "--json"]);
    const built = parseJson(build.out);
    const row = {
      name,
      deps: deps.status,
      build: build.code === 0 ? "ok" : "FAIL",
      check: "-",
      errors: 0,
      warnings: 0,
      runs: [],
      notes: [],
      tests: "-",
    };
    if (deps.detail) row.notes.push(deps.detail);
    if (build.code !== 0) {
      row.notes.push(
        (built?.diagnostics ?? [])
          .filter((d) => d.severity === "error")
          .map((d) => `${d.code} ${d.message}`)
          .join("; ") || build.err.trim().split("\n").at(-1),
      );
    } else {
      const check = parseJson(skillport(["plugin", "check", "--entry", dir, "--json"]).out);
      const diagnostics = check?.diagnostics ?? [];
      row.errors = diagnostics.filter((d) => d.severity === "error").length;
      row.warnings = diagnostics.filter((d) => d.severity === "warning").length;
      row.check = check?.ok ? "ok" : "FAIL";
      const codes = [...new Set(diagnostics.map((d) => `${d.severity === "error" ? "E" : "W"}:${d.code}`))];
      if (codes.length > 0) row.notes.push(codes.join(" "));
      const manifest = parseJson(readFileSync(path.join(dir, "dist", "manifest.json"), "utf8"));
      row.runs = runTool(name, dir, manifest, args.timeout);
      if (args.ownTests) row.tests = ownTests(dir);
    }
    row.seconds = Math.round((Date.now() - started) / 1000);
    rows.push(row);
    const runs = row.runs.map((r) => `${r.id}=${r.outcome}`).join(" ");
    console.error(
      `${name}: deps ${row.deps}, build ${row.build}, check ${row.check} (${row.errors}E/${row.warnings}W), run ${runs} [${row.seconds}s]`,
    );
  }
  const report = `Layout: ${args.layout}.\n\n${render(rows)}`;
  if (args.out) writeFileSync(args.out, report);
  console.log(report);
  process.exitCode = rows.some((r) => r.build !== "ok" || r.check !== "ok" || r.runs.some((x) => x.outcome === "crash"))
    ? 1
    : 0;
}

function render(rows) {
  const count = (pred) => rows.filter(pred).length;
  const runs = rows.flatMap((r) => r.runs);
  const outcomes = ["ok", "network", "error", "crash"]
    .map((o) => `${o} ${runs.filter((r) => r.outcome === o).length}`)
    .join(", ");
  const lines = [
    `Tools: ${rows.length}. Build ok: ${count((r) => r.build === "ok")}. Check ok (no errors): ${count((r) => r.check === "ok")}; ` +
      `warnings in ${count((r) => r.warnings > 0)}. Runs (one per tool or child, ${runs.length}): ${outcomes}.`,
    "",
    "| tool | deps | build | check | run (per tool/child) | own tests | notes |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of rows) {
    const run = r.runs.map((x) => (r.runs.length === 1 ? x.outcome : `${x.id}: ${x.outcome}`)).join(", ") || "-";
    const details = r.runs
      .filter((x) => x.outcome !== "ok")
      .map((x) => `${r.runs.length === 1 ? "" : `${x.id}: `}${x.detail}`);
    const notes = [...r.notes, ...details].join("; ").replace(/\|/g, "\\|").replace(/\s+/g, " ").slice(0, 300);
    lines.push(
      `| ${r.name} | ${r.deps} | ${r.build} | ${r.check}${r.warnings ? ` (${r.warnings}W)` : ""} | ${run} | ${r.tests} | ${notes} |`,
    );
  }
  return lines.join("\n") + "\n";
}

main();
