// Discovery benchmark: discover + getMetadata, catalog rendering and CLI validation against a raw floor,
// each step a whole `node` process (start-up included, as users meet it), medians of interleaved runs.
//   node bench/discovery.mjs [--sizes 1000,10000] [--runs 5]
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateCorpus } from "./corpus.mjs";
import { measureInterleaved, printTable, timeNode } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = (pkg) => path.join(here, "..", "packages", pkg, "dist", "index.js");
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

const report = (extra = {}) => console.log(JSON.stringify({ rssMiB: Math.round(process.resourceUsage().maxRSS / 1024), ...extra }));

// Each step runs in its own process: `node discovery.mjs --step <name> <dir>`.
const steps = {
  async floor(dir) {
    const entries = await readdir(dir, { withFileTypes: true });
    const texts = await mapLimit(entries.filter((e) => e.isDirectory()), 64, (e) => readFile(path.join(dir, e.name, "SKILL.md"), "utf8"));
    report({ skills: texts.length });
  },
  async floorSync(dir) {
    const { readdirSync, readFileSync } = await import("node:fs");
    const texts = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => readFileSync(path.join(dir, e.name, "SKILL.md"), "utf8"));
    report({ skills: texts.length });
  },
  async yaml(dir) {
    // The common approach of peers: read the file, cut the frontmatter, full YAML parse.
    const { parse } = await import("yaml");
    const entries = await readdir(dir, { withFileTypes: true });
    const metas = await mapLimit(entries.filter((e) => e.isDirectory()), 64, async (e) => {
      const text = await readFile(path.join(dir, e.name, "SKILL.md"), "utf8");
      const end = text.indexOf("\n---", 3);
      return parse(text.slice(4, end));
    });
    report({ skills: metas.length });
  },
  async metadata(dir) {
    const { LocalFileSystemSkillProvider } = await import(dist("fs"));
    const provider = new LocalFileSystemSkillProvider(dir);
    const ids = await provider.discover();
    const metas = await mapLimit(ids, 64, (id) => provider.getMetadata(id));
    const described = metas.filter((m) => typeof m.description === "string" && m.description.length > 0).length;
    report({ skills: ids.length, described });
  },
  async catalog(dir) {
    const { LocalFileSystemSkillProvider } = await import(dist("fs"));
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
  const sizes = (args[args.indexOf("--sizes") + 1] && args.includes("--sizes") ? args[args.indexOf("--sizes") + 1] : "1000,10000")
    .split(",")
    .map(Number);
  const runs = args.includes("--runs") ? Number(args[args.indexOf("--runs") + 1]) : 5;
  const cli = path.join(here, "..", "packages", "cli", "dist", "main.js");
  for (const size of sizes) {
    const dir = await mkdtemp(path.join(os.tmpdir(), `skillport-bench-${size}-`));
    try {
      await generateCorpus(dir, size);
      const step = (name) => ({ name, run: () => timeNode([self, "--step", name, dir]) });
      const results = measureInterleaved(
        [
          step("floor"),
          step("floorSync"),
          step("yaml"),
          step("metadata"),
          step("catalog"),
          { name: "validate", run: () => timeNode([cli, "validate", dir, "--profile", "lenient", "--format", "json", "--no-lint"]) },
        ],
        size >= 10000 ? Math.max(3, Math.ceil(runs / 2)) : runs,
      );
      const floor = results[0].ms;
      const label = {
        floor: "(a) raw floor: readdir + readFile every SKILL.md",
        floorSync: "    raw floor, blocking: readdirSync + readFileSync",
        yaml: "    peer approach: read + yaml.parse every frontmatter",
        metadata: "(b) skillport discover + getMetadata",
        catalog: "(c) registry + catalog (xml)",
        validate: "(d) skillport validate (CLI, lenient, json)",
      };
      printTable(
        `${size} skills (medians, whole processes; ${os.cpus().length} cores, Node ${process.version})`,
        ["step", "ms", "× floor", "peak RSS MiB"],
        results.map((r) => [label[r.name], r.ms.toFixed(0), (r.ms / floor).toFixed(2), r.rssMiB || "-"]),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

await main();
