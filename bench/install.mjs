// Install benchmark (issue 23): `skillport add` of a 50-skill repository from a local `git daemon` into 3 agents,
// beside Vercel's `skills` CLI doing the same (Node 22 and skills from npm through npmTools) and a bare
// `git clone --depth 1` + copy + links; then `skillport install --frozen` of the 50-skill lock with a warm cache.
// Every step is a whole process in a fresh project folder (and, for the adds, a cold cache of the repository; `skillport
// add` has the code cache an earlier `add` left, decision 0446, and runs once more without); the steps alternate round
// by round so drift on a shared machine hits each alike. Goals: add ≤ 1.0× skills, ≤ 1.5× clone+copy; frozen ≤ 200 ms.
//   node bench/install.mjs [--size 50] [--runs 5] [--baseline <tree>]
// `--baseline` also times both skillport steps with the built CLI of another checkout (say main's, built), in the same
// alternated rounds: a paired before/after on one machine at one load.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median, printTable } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, "..", "packages/cli/dist/cli.js");
const self = fileURLToPath(import.meta.url);
const SKILLS_VERSION = "1.7.4";
const AGENTS = ["claude-code", "roo", "windsurf"];
const AGENT_DIRS = [".claude/skills", ".roo/skills", ".windsurf/skills"];

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "b",
  GIT_AUTHOR_EMAIL: "b@example.test",
  GIT_COMMITTER_NAME: "b",
  GIT_COMMITTER_EMAIL: "b@example.test",
};
const git = (cwd, ...args) => execFileSync("git", ["-c", "gc.auto=0", ...args], { cwd, stdio: "ignore", env: GIT_ENV });

/** The bare baseline, as one process: a shallow clone, the skills copied into .agents/skills, a link per agent. */
function cloneAndCopy(url, project) {
  const tmp = path.join(project, ".clone");
  execFileSync("git", ["clone", "-q", "--depth", "1", url, tmp], { stdio: "ignore", env: GIT_ENV });
  const canonical = path.join(project, ".agents/skills");
  mkdirSync(canonical, { recursive: true });
  for (const name of readdirSync(path.join(tmp, "skills"))) {
    cpSync(path.join(tmp, "skills", name), path.join(canonical, name), { recursive: true });
    for (const dir of AGENT_DIRS) {
      mkdirSync(path.join(project, dir), { recursive: true });
      symlinkSync(path.relative(path.join(project, dir), path.join(canonical, name)), path.join(project, dir, name));
    }
  }
}

function skillMd(i) {
  const name = `skill-${String(i).padStart(3, "0")}`;
  const body = Array.from({ length: 40 }, (_, l) => `Step ${l + 1}: do the ${name} thing carefully and check it.`);
  return [
    name,
    `---\nname: ${name}\ndescription: Handles ${name} tasks. Use when the user asks about ${name} or its files.\n---\n\n# ${name}\n\n${body.join("\n")}\n`,
  ];
}

async function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startDaemon(base) {
  const port = await freePort();
  const child = spawn(
    "git",
    ["daemon", "--reuseaddr", `--base-path=${base}`, "--export-all", `--port=${port}`, "--listen=127.0.0.1", base],
    { stdio: "ignore", env: GIT_ENV },
  );
  for (let i = 0; i < 200; i++) {
    const up = await new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => (socket.end(), resolve(true)));
      socket.on("error", () => resolve(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  return { port, stop: () => child.kill() };
}

const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
/**
 * Runs a whole process; returns its wall time and CPU time (user + system of it and its children, from /usr/bin/time:
 * the figure a loaded machine distorts least), in ms. A failure stops the bench: a broken step is no figure.
 */
function time(command, args, { cwd, env }) {
  const cpuFile = path.join(os.tmpdir(), `skillport-bench-cpu-${process.pid}`);
  const [run, argv] = TIME ? [TIME, ["-o", cpuFile, "-f", "%U %S", command, ...args]] : [command, args];
  const started = process.hrtime.bigint();
  const result = spawnSync(run, argv, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  let cpu = Number.NaN;
  if (TIME && existsSync(cpuFile)) {
    const [user, sys] = readFileSync(cpuFile, "utf8").trim().split("\n").pop().split(" ").map(Number);
    cpu = (user + sys) * 1000;
  }
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(" ")} failed (${result.status}): ${(result.stderr || result.stdout).slice(0, 2000)}`,
    );
  return { ms, cpu };
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === "--clone-copy") return cloneAndCopy(args[1], args[2]);
  const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const size = option("--size", 50);
  const runs = Math.max(5, option("--runs", 5));
  const baselineTree = args.includes("--baseline")
    ? path.resolve(args[args.indexOf("--baseline") + 1] ?? "")
    : undefined;
  const baseCli = baselineTree && path.join(baselineTree, "packages/cli/dist/cli.js");
  if (baseCli && !existsSync(baseCli)) throw new Error(`no built CLI at ${baseCli}`);
  if (!existsSync(cli)) throw new Error("build first: npx tsc -b tsconfig.build.json && npm run bundle");
  const { npmTools } = await import(path.join(here, "..", "packages/testing/dist/npm-tools.js"));
  const tools = await npmTools(`skills-oracle-${SKILLS_VERSION}`, [`skills@${SKILLS_VERSION}`]);
  let skills;
  if ("skip" in tools) console.log(`(the skills CLI is left out: ${tools.skip})`);
  else {
    const manifest = JSON.parse(readFileSync(tools.file("skills", "package.json"), "utf8"));
    skills = {
      node: tools.node,
      cli: tools.file("skills", typeof manifest.bin === "string" ? manifest.bin : manifest.bin.skills),
    };
  }

  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-bench-install-"));
  mkdirSync(path.join(dir, "srv/bench"), { recursive: true });
  const daemon = await startDaemon(path.join(dir, "srv"));
  try {
    const work = path.join(dir, "work");
    for (let i = 0; i < size; i++) {
      const [name, text] = skillMd(i);
      mkdirSync(path.join(work, "skills", name, "references"), { recursive: true });
      writeFileSync(path.join(work, "skills", name, "SKILL.md"), text);
      writeFileSync(
        path.join(work, "skills", name, "references/notes.md"),
        `# Notes for ${name}\n\n${"More detail. ".repeat(80)}\n`,
      );
    }
    git(dir, "init", "-q", "--bare", "-b", "main", path.join(dir, "srv/bench/skills.git"));
    git(work, "init", "-q", "-b", "main");
    git(work, "add", "-A");
    git(work, "commit", "-q", "-m", "skills");
    git(work, "push", "-q", path.join(dir, "srv/bench/skills.git"), "main");
    const url = `git://127.0.0.1:${daemon.port}/bench/skills.git`;

    let n = 0;
    const fresh = () => {
      const project = path.join(dir, `p${++n}`);
      const home = path.join(dir, `h${n}`);
      // Both CLIs link an agent whose project folder exists; theirs skips one that does not.
      for (const d of [".claude", ".roo", ".windsurf"]) mkdirSync(path.join(project, d), { recursive: true });
      mkdirSync(home, { recursive: true });
      const env = {
        PATH: process.env.PATH ?? "",
        HOME: home,
        NO_COLOR: "1",
        CI: "1",
        DO_NOT_TRACK: "1",
        DISABLE_TELEMETRY: "1",
        SKILLPORT_CACHE_DIR: path.join(dir, `cache${n}`),
      };
      return { project, env };
    };
    // The compiled code a hot command keeps in the user's cache folder (decision 0446): `add` of a repository not seen
    // before (cold git cache) by a CLI that has run `add` before gets it; the first `add` after an install or upgrade
    // does not (its own row). Seeded below from a first run, copied into each fresh cache folder before the clock starts.
    const codeSeed = path.join(dir, "code-seed");
    const addWith =
      (bin, { codeCache = false } = {}) =>
      () => {
        const { project, env } = fresh();
        if (codeCache && existsSync(codeSeed))
          cpSync(codeSeed, path.join(env.SKILLPORT_CACHE_DIR, "code"), { recursive: true });
        return time(process.execPath, [bin, "add", url, "--skill", "*", "--yes", "--agent", ...AGENTS], {
          cwd: project,
          env,
        });
      };
    const steps = [
      { name: "skillport add", run: addWith(cli, { codeCache: true }) },
      { name: "skillport add (no code cache yet)", run: addWith(cli) },
      ...(baseCli ? [{ name: "skillport add (baseline)", run: addWith(baseCli) }] : []),
      ...(skills
        ? [
            {
              name: `skills ${SKILLS_VERSION} add`,
              run: () => {
                const { project, env } = fresh();
                return time(skills.node, [skills.cli, "add", url, "--skill", "*", "-y", "--agent", ...AGENTS], {
                  cwd: project,
                  env,
                });
              },
            },
          ]
        : []),
      {
        name: "git clone --depth 1 + copy",
        run: () => {
          const { project, env } = fresh();
          return time(process.execPath, [self, "--clone-copy", url, project], { cwd: project, env });
        },
      },
    ];
    // install --frozen: a lock written once; each run restores it into a fresh folder from the same (warm) cache.
    const locked = fresh();
    time(process.execPath, [cli, "add", url, "--skill", "*", "--yes", "--agent", ...AGENTS], {
      cwd: locked.project,
      env: locked.env,
    });
    const lockedCode = path.join(locked.env.SKILLPORT_CACHE_DIR, "code");
    if (existsSync(lockedCode)) cpSync(lockedCode, codeSeed, { recursive: true });
    const restore = (flags = [], bin = cli) => {
      const { project } = fresh();
      for (const f of ["skills-lock.json", "skillport-lock.json"])
        cpSync(path.join(locked.project, f), path.join(project, f));
      return time(process.execPath, [...flags, bin, "install", "--frozen"], { cwd: project, env: locked.env });
    };
    // The lock names the commit, a cache entry of its own: one restore first, so the timed ones find it warm.
    restore();
    steps.push({
      name: "skillport install --frozen (warm)",
      run: () => {
        const profile = process.env.SKILLPORT_BENCH_PROFILE; // a folder: write a CPU profile of each restore there
        return restore(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []);
      },
    });
    if (baseCli) {
      restore([], baseCli);
      steps.push({ name: "skillport install --frozen (warm, baseline)", run: () => restore([], baseCli) });
    }

    const samples = Object.fromEntries(steps.map((s) => [s.name, []]));
    for (let r = 0; r < runs; r++) {
      const order = r % 2 === 0 ? steps : [...steps].reverse(); // paired, alternated order
      for (const step of order) samples[step.name].push(step.run());
    }
    const ms = (name) => median(samples[name].map((r) => r.ms));
    const add = ms("skillport add");
    const theirs = skills ? ms(`skills ${SKILLS_VERSION} add`) : undefined;
    const clone = ms("git clone --depth 1 + copy");
    const cpu = (name) => median(samples[name].map((r) => r.cpu));
    const rows = steps.map((s) => {
      const m = ms(s.name);
      const min = Math.min(...samples[s.name].map((r) => r.ms));
      return [s.name, m.toFixed(0), min.toFixed(0), cpu(s.name).toFixed(0)];
    });
    printTable(
      `add of ${size} skills into ${AGENTS.length} agents from a git daemon; install --frozen of the lock (medians of ${runs} alternated rounds, whole processes; ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}, Node ${process.version})`,
      ["step", "median ms", "min ms", "CPU ms (median)"],
      rows,
    );
    const frozen = ms("skillport install --frozen (warm)");
    const cpuRatio = (a, b) => (cpu(a) / cpu(b)).toFixed(2);
    console.log(
      `CPU time: add ${skills ? `${cpuRatio("skillport add", `skills ${SKILLS_VERSION} add`)}× the skills CLI, ` : ""}${cpuRatio("skillport add", "git clone --depth 1 + copy")}× clone+copy (children included: git, and the shell-free copy)`,
    );
    if (baseCli)
      console.log(
        `baseline ${baselineTree}: add ${(add / ms("skillport add (baseline)")).toFixed(2)}× wall, ${cpuRatio("skillport add", "skillport add (baseline)")}× CPU; install --frozen ${(frozen / ms("skillport install --frozen (warm, baseline)")).toFixed(2)}× wall, ${cpuRatio("skillport install --frozen (warm)", "skillport install --frozen (warm, baseline)")}× CPU (this tree ÷ baseline)`,
      );
    const cold = ms("skillport add (no code cache yet)");
    console.log(
      `\nadd: ${theirs !== undefined ? `${(add / theirs).toFixed(2)}× the skills CLI (goal ≤ 1.0), ` : ""}${(add / clone).toFixed(2)}× clone+copy (goal ≤ 1.5; the first add after an install, with no code cache yet: ${(cold / clone).toFixed(2)}×); install --frozen ${frozen.toFixed(0)} ms (goal ≤ 200)`,
    );
  } finally {
    daemon.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
