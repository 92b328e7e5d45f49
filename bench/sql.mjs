// SQL benchmark: list + metadata of N skills from SQLite and PostgreSQL beside the filesystem provider, each step a
// whole `node` process (start-up included, as users meet it), medians of interleaved runs; then a 1,000-skill save
// in one transaction (in-process, the save call alone).
//   node bench/sql.mjs [--size 10000] [--runs 5] [--save 1000]
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateCorpus } from "./corpus.mjs";
import { listWithMetadata, measureInterleaved, median, printTable, report, timeNode } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = (pkg) => path.join(here, "..", "packages", pkg, "dist", "index.js");
const self = fileURLToPath(import.meta.url);
const POSTGRES_ADMIN = process.env.SKILLPORT_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const steps = {
  async fs(dir) {
    const { LocalFileSystemSkillProvider } = await import(dist("fs"));
    report(await listWithMetadata(new LocalFileSystemSkillProvider(dir)));
  },
  async load(address, dir) {
    // Loading happens in a child too, so the parent stays small (a child inherits its parent's peak RSS).
    const skills = await readAll(dir);
    await load(address, skills);
    report({ skills: skills.length });
  },
  async save(address, dir, count, runs) {
    const batch = (await readAll(dir)).slice(0, Number(count));
    report({ ...(await timeSaves(address, batch, Number(runs))), skills: batch.length });
  },
  async sql(address) {
    const { SqlSkillRepository } = await import(dist("sql"));
    const repository = new SqlSkillRepository({ connection: address, writeable: false, migrate: false });
    try {
      report(await listWithMetadata(repository));
    } finally {
      await repository.close();
    }
  },
};

async function withPostgresDatabase(use) {
  const { default: pg } = await import("pg");
  const name = `skillport_bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN);
  url.pathname = `/${name}`;
  try {
    return await use(url.href);
  } finally {
    const drop = new pg.Client({ connectionString: POSTGRES_ADMIN });
    await drop.connect();
    await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await drop.end();
  }
}

/** Every skill of a folder as `Skill` objects (through the filesystem repository's getAllSkills). */
async function readAll(dir) {
  const { FileSystemSkillRepository } = await import(dist("fs"));
  return new FileSystemSkillRepository(dir).getAllSkills();
}

async function load(address, skills) {
  const { SqlSkillRepository } = await import(dist("sql"));
  const repository = await SqlSkillRepository.open({ connection: address });
  try {
    await repository.save(skills);
  } finally {
    await repository.close();
  }
}

/** Median wall time of `save(batch)` (one transaction), each run into a fresh namespace. */
async function timeSaves(address, batch, runs) {
  const { SqlSkillRepository } = await import(dist("sql"));
  const times = [];
  for (let i = 0; i < runs; i++) {
    const repository = await SqlSkillRepository.open({ connection: address, namespace: `save-${i}` });
    try {
      const started = process.hrtime.bigint();
      await repository.save(batch);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    } finally {
      await repository.close();
    }
  }
  return { ms: median(times), min: Math.min(...times), max: Math.max(...times) };
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === "--step") return steps[args[1]](...args.slice(2));
  const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const size = option("--size", 10000);
  const runs = option("--runs", 5);
  const saveCount = option("--save", 1000);
  const dir = await mkdtemp(path.join(os.tmpdir(), `skillport-bench-sql-${size}-`));
  try {
    await generateCorpus(path.join(dir, "skills"), size);
    const sqlite = `sqlite:${path.join(dir, "skills.db")}`;
    timeNode([self, "--step", "load", sqlite, path.join(dir, "skills")]);
    await withPostgresDatabase(async (postgres) => {
      timeNode([self, "--step", "load", postgres, path.join(dir, "skills")]);
      const step = (name, target) => ({
        name,
        run: () => timeNode([self, "--step", name === "fs" ? "fs" : "sql", target]),
      });
      const results = measureInterleaved(
        [step("fs", path.join(dir, "skills")), step("sqlite", sqlite), step("postgres", postgres)],
        runs,
      );
      const base = results[0].ms;
      const label = {
        fs: "(a) filesystem provider: discover + getMetadata",
        sqlite: "(b) SQLite: discover + getMetadata",
        postgres: "(c) PostgreSQL: discover + getMetadata",
      };
      printTable(
        `${size} skills, list + metadata (medians of ${runs} interleaved runs, whole processes; ${os.cpus().length} cores, Node ${process.version})`,
        ["step", "ms", "× filesystem", "peak RSS MiB", "skills"],
        results.map((r) => [label[r.name], r.ms.toFixed(0), (r.ms / base).toFixed(2), r.rssMiB || "-", r.extra.skills]),
      );
      const saveIn = (address) =>
        timeNode([self, "--step", "save", address, path.join(dir, "skills"), String(saveCount), String(runs)]).report;
      const saves = [
        ["SQLite (file, WAL)", saveIn(sqlite)],
        ["PostgreSQL", saveIn(postgres)],
      ];
      const batch = { length: saveCount };
      printTable(
        `save(${batch.length} skills) in one transaction (in-process, median of ${runs} runs, fresh namespace each)`,
        ["store", "median ms", "min ms", "max ms", "skills/s"],
        saves.map(([name, t]) => [
          name,
          t.ms.toFixed(0),
          t.min.toFixed(0),
          t.max.toFixed(0),
          Math.round((batch.length / t.ms) * 1000),
        ]),
      );
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
