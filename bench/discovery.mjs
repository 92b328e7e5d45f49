// Discovery benchmark (issue 14): discover + getMetadata, catalog rendering and CLI validation against the BLOCKING
// raw floor (readdirSync + readFileSync of every SKILL.md as a Buffer, no parsing) and a 4 KiB-head floor, and `validate`
// against a node + yaml one-liner and a lint floor (the reads plus the folder listing lint needs); each step a
// whole `node` process (start-up included, as users meet it), medians of paired (interleaved) runs.
//   node bench/discovery.mjs [--sizes 1000,10000,50000] [--runs 5]
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateCorpus } from "./corpus.mjs";
import { measureInterleaved, printTable, report, timeNode } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = (pkg) => path.join(here, "..", "packages", pkg, "dist", "index.js");
// The provider is imported by its package name, through the package's "exports", as a library user imports it
// (since decision 0215 the main entry is one bundled module, not dist/index.js).
const fsPackage = () => import("@skillport/fs");
const self = fileURLToPath(import.meta.url);

async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

// Each step runs in its own process: `node discovery.mjs --step <name> <dir>`.
const steps = {
  async floorAsync(dir) {
    const entries = await readdir(dir, { withFileTypes: true });
    const texts = await mapLimit(
      entries.filter((e) => e.isDirectory()),
      64,
      (e) => readFile(path.join(dir, e.name, "SKILL.md"), "utf8"),
    );
    report({ skills: texts.length });
  },
  async floor(dir) {
    // The floor: blocking calls, bytes only (no decoding, no parsing).
    const { readdirSync, readFileSync } = await import("node:fs");
    let bytes = 0;
    for (const e of readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) bytes += readFileSync(path.join(dir, e.name, "SKILL.md")).byteLength;
    report({ bytes });
  },
  async floorHead(dir) {
    // The first 4 KiB of each SKILL.md into one reused buffer: what reading only the frontmatter can cost at best.
    const { closeSync, openSync, readdirSync, readSync } = await import("node:fs");
    const buffer = Buffer.allocUnsafe(4096);
    let bytes = 0;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const fd = openSync(path.join(dir, e.name, "SKILL.md"), "r");
      bytes += readSync(fd, buffer, 0, 4096, 0);
      closeSync(fd);
    }
    report({ bytes });
  },
  async yamlValidate(dir) {
    // What `validate` is compared with: a node + yaml one-liner that reads each SKILL.md, cuts the frontmatter,
    // parses it and checks that name and description are strings.
    const { readdirSync, readFileSync } = await import("node:fs");
    const { parse } = await import("yaml");
    let valid = 0;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const text = readFileSync(path.join(dir, e.name, "SKILL.md"), "utf8");
      const fm = parse(text.slice(4, text.indexOf("\n---", 3)));
      if (typeof fm?.name === "string" && typeof fm?.description === "string") valid++;
    }
    report({ valid });
  },
  async lintFloor(dir) {
    // What `validate` with lint cannot go below: read every SKILL.md and list every skill folder and subfolder with an
    // lstat per file (lint's file-tree policy and references need the listing: decision 0206). No parsing at all.
    const { lstatSync, readdirSync, readFileSync } = await import("node:fs");
    let entries = 0;
    const list = (folder) => {
      for (const e of readdirSync(folder, { withFileTypes: true })) {
        entries++;
        const p = path.join(folder, e.name);
        if (e.isDirectory()) list(p);
        else lstatSync(p);
      }
    };
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      readFileSync(path.join(dir, e.name, "SKILL.md"));
      list(path.join(dir, e.name));
    }
    report({ entries });
  },
  async yaml(dir) {
    // The common approach of peers: read the file, cut the frontmatter, full YAML parse.
    const { parse } = await import("yaml");
    const entries = await readdir(dir, { withFileTypes: true });
    const metas = await mapLimit(
      entries.filter((e) => e.isDirectory()),
      64,
      async (e) => {
        const text = await readFile(path.join(dir, e.name, "SKILL.md"), "utf8");
        const end = text.indexOf("\n---", 3);
        return parse(text.slice(4, end));
      },
    );
    report({ skills: metas.length });
  },
  async metadata(dir) {
    const { LocalFileSystemSkillProvider } = await fsPackage();
    const provider = new LocalFileSystemSkillProvider(dir);
    const ids = await provider.discover();
    const metas = await mapLimit(ids, 64, (id) => provider.getMetadata(id));
    const described = metas.filter((m) => typeof m.description === "string" && m.description.length > 0).length;
    report({ skills: ids.length, described });
  },
  async catalog(dir) {
    const { LocalFileSystemSkillProvider } = await fsPackage();
    const { SkillRegistry, renderCatalog } = await import(dist("core"));
    const registry = new SkillRegistry();
    await registry.addProvider(new LocalFileSystemSkillProvider(dir), { watch: false });
    const text = await registry.catalog({ format: "xml" });
    report({ chars: text.length, render: typeof renderCatalog });
  },
};

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === "--step") return steps[args[1]](args[2]);
  const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const sizes = arg("--sizes", "1000,10000,50000").split(",").map(Number);
  const runs = Math.max(5, Number(arg("--runs", "5")));
  const cli = path.join(here, "..", "packages", "cli", "dist", "cli.js");
  for (const size of sizes) {
    const dir = await mkdtemp(path.join(os.tmpdir(), `skillport-bench-${size}-`));
    try {
      await generateCorpus(dir, size);
      const step = (name) => ({ name, run: () => timeNode([self, "--step", name, dir]) });
      const results = measureInterleaved(
        [
          step("floor"),
          step("floorHead"),
          step("floorAsync"),
          step("yaml"),
          step("metadata"),
          step("catalog"),
          step("yamlValidate"),
          step("lintFloor"),
          { name: "validate", run: () => timeNode([cli, "validate", dir, "--profile", "spec", "--format", "json"]) },
          {
            name: "validateNoLint",
            run: () => timeNode([cli, "validate", dir, "--profile", "lenient", "--format", "json", "--no-lint"]),
          },
        ],
        runs,
      );
      const byName = Object.fromEntries(results.map((r) => [r.name, r]));
      const floor = byName.floor.ms;
      const label = {
        floor: "(a) blocking floor: readdirSync + readFileSync (Buffer)",
        floorHead: "    blocking floor, first 4 KiB only",
        floorAsync: "    fs.promises.readFile (utf8), 64 in flight",
        yaml: "    peer approach: read + yaml.parse every frontmatter",
        metadata: "(b) skillport discover + getMetadata",
        catalog: "(c) registry + catalog (xml)",
        yamlValidate: "    node + yaml one-liner (validate's baseline)",
        lintFloor: "    lint floor: read SKILL.md + list every folder, lstat files",
        validate: "(d) skillport validate (CLI, spec, lint)",
        validateNoLint: "    skillport validate --no-lint (lenient)",
      };
      printTable(
        `${size} skills (medians of ${runs} paired runs, whole processes; ${os.cpus().length} cores, Node ${process.version}, load ${os.loadavg()[0].toFixed(1)})`,
        ["step", "ms", "× floor", "× baseline", "peak RSS MiB"],
        results.map((r) => [
          label[r.name],
          r.ms.toFixed(0),
          (r.ms / floor).toFixed(2),
          r.name === "validate"
            ? `${(r.ms / byName.yamlValidate.ms).toFixed(2)} (one-liner), ${(r.ms / byName.lintFloor.ms).toFixed(2)} (lint floor)`
            : r.name === "validateNoLint" || r.name === "lintFloor"
              ? `${(r.ms / byName.yamlValidate.ms).toFixed(2)} (one-liner)`
              : r.name === "metadata"
                ? `${(r.rssMiB / byName.floor.rssMiB).toFixed(2)} RSS`
                : "",
          r.rssMiB || "-",
        ]),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  // Start-up, as every CLI run pays it.
  const startup = measureInterleaved(
    [
      { name: "node", run: () => timeNode(["-e", "0"]) },
      { name: "version", run: () => timeNode([cli, "--version"]) },
      { name: "help", run: () => timeNode([cli, "--help"]) },
    ],
    Math.max(runs, 10),
  );
  printTable(
    "start-up (medians of paired runs)",
    ["step", "ms", "× node -e 0"],
    startup.map((r) => [
      {
        node: "node -e 0",
        version: "skillport --version (answered before the parser loads)",
        help: "skillport --help (loads the parser)",
      }[r.name],
      r.ms.toFixed(0),
      (r.ms / startup[0].ms).toFixed(2),
    ]),
  );
}
await main();
