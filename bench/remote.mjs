// Git source benchmark: list + metadata of N skills from a git repository's kept copy (a restart: no network) beside
// the filesystem provider, each step a whole `node` process; then a first sync (shallow sparse clone over file://) and
// a sync with the ref unchanged (ls-remote only).
//   node bench/remote.mjs [--size 10000] [--runs 5]
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateCorpus } from "./corpus.mjs";
import { listWithMetadata, measureInterleaved, median, printTable, report, timeNode } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = (pkg) => path.join(here, "..", "packages", pkg, "dist", "index.js");
const self = fileURLToPath(import.meta.url);

const steps = {
  async fs(dir) {
    const { LocalFileSystemSkillProvider } = await import(dist("fs"));
    report(await listWithMetadata(new LocalFileSystemSkillProvider(dir)));
  },
  async git(url, cacheDir) {
    const { GitSkillSource } = await import(dist("remote"));
    report(await listWithMetadata(new GitSkillSource({ url, cacheDir, syncIntervalMs: 3_600_000 })));
  },
  async sync(url, cacheDir) {
    const { GitSkillSource } = await import(dist("remote"));
    const source = new GitSkillSource({ url, cacheDir, syncIntervalMs: 3_600_000 });
    const started = process.hrtime.bigint();
    const result = await source.sync();
    report({ syncMs: Number(process.hrtime.bigint() - started) / 1e6, changed: result.changed });
  },
};

function git(cwd, ...args) {
  // No background auto-gc: it would still be writing when the temp folder is removed.
  execFileSync("git", ["-c", "gc.auto=0", ...args], {
    cwd,
    stdio: "ignore",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "b",
      GIT_AUTHOR_EMAIL: "b@example.test",
      GIT_COMMITTER_NAME: "b",
      GIT_COMMITTER_EMAIL: "b@example.test",
    },
  });
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === "--step") return steps[args[1]](...args.slice(2));
  const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const size = option("--size", 10000);
  const runs = option("--runs", 5);
  const dir = await mkdtemp(path.join(os.tmpdir(), `skillport-bench-remote-${size}-`));
  try {
    const work = path.join(dir, "work");
    await generateCorpus(path.join(work, "skills"), size);
    git(dir, "init", "-q", "--bare", "-b", "main", "repo.git");
    git(work, "init", "-q", "-b", "main");
    git(work, "add", "-A");
    git(work, "commit", "-q", "-m", "corpus");
    git(work, "push", "-q", path.join(dir, "repo.git"), "main");
    const url = `file://${path.join(dir, "repo.git")}`;
    const cacheDir = path.join(dir, "cache");
    const first = timeNode([self, "--step", "sync", url, cacheDir]);
    const unchanged = [];
    for (let i = 0; i < runs; i++) unchanged.push(timeNode([self, "--step", "sync", url, cacheDir]).report.syncMs);
    const results = measureInterleaved(
      [
        { name: "fs", run: () => timeNode([self, "--step", "fs", path.join(work, "skills")]) },
        { name: "git", run: () => timeNode([self, "--step", "git", url, cacheDir]) },
      ],
      runs,
    );
    const base = results[0].ms;
    printTable(
      `${size} skills, list + metadata (medians of ${runs} interleaved runs, whole processes; ${os.cpus().length} cores, Node ${process.version})`,
      ["step", "ms", "× filesystem", "peak RSS MiB", "skills"],
      results.map((r) => [
        r.name === "fs" ? "(a) filesystem provider" : "(b) git source, kept copy (restart, no network)",
        r.ms.toFixed(0),
        (r.ms / base).toFixed(2),
        r.rssMiB || "-",
        r.extra.skills,
      ]),
    );
    printTable(
      `git sync over file:// (${size} skills)`,
      ["step", "ms"],
      [
        ["first sync: ls-remote + shallow fetch + sparse checkout (in-process)", first.report.syncMs.toFixed(0)],
        [`sync with the ref unchanged: ls-remote only (median of ${runs})`, median(unchanged).toFixed(0)],
      ],
    );
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

await main();
