// The oracle (issue 23): Vercel's `skills` CLI and skillport install the same repository from a git daemon on
// 127.0.0.1 and must produce the same folders, links and skills-lock.json, and each must restore the other's lock.
// The `skills` CLI and Node 22 come from npm, installed once into the test cache (oracleClients); the test skips only
// when the npm registry cannot be reached.
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, readlinkSync, lstatSync } from "node:fs";
import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir } from "@skillport/testing";
import { oracleClients } from "./test-support.js";
import {
  commitAndPush,
  makeRepo,
  startGitDaemon,
  type RunningServer,
} from "../../remote/src/test-support/git-servers.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
const clients = await oracleClients();
if ("skip" in clients) {
  console.warn(`skipping the skills CLI oracle: ${clients.skip}`);
}
const oracleNode = "skip" in clients ? "" : clients.node;
const oracleCli = "skip" in clients ? "" : clients.skills;
const skillMd = (name: string) =>
  `---\nname: ${name}\ndescription: Does ${name} things. Use when asked for ${name}.\n---\n\n# ${name}\n\nSteps.\n`;

let root: string;
let daemon: RunningServer & { port: number };
let address: string;
let marketAddress: string;

function run(tool: "skillport" | "skills", args: string[], cwd: string): Promise<{ code: number | null; out: string }> {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: path.join(root, "home"),
    SKILLPORT_CACHE_DIR: path.join(root, "cache"),
    DO_NOT_TRACK: "1",
    DISABLE_TELEMETRY: "1",
    NO_COLOR: "1",
    CI: "1",
  };
  const argv = tool === "skillport" ? [bin, ...args] : [oracleCli, ...args];
  return new Promise((resolve) => {
    const child = spawn(tool === "skillport" ? process.execPath : oracleNode, argv, {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", (code) => resolve({ code, out }));
  });
}

/** Every entry below `dir` except the lockfiles: path → file bytes (base64) or `-> link target`. */
function tree(dir: string, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, rel)).sort()) {
    const sub = path.posix.join(rel, name);
    if (rel === "" && /^(skills-lock|skillport-lock)\.json$/.test(name)) continue;
    const st = lstatSync(path.join(dir, sub));
    if (st.isSymbolicLink()) out[sub] = `-> ${readlinkSync(path.join(dir, sub))}`;
    else if (st.isDirectory()) Object.assign(out, tree(dir, sub));
    else out[sub] = readFileSync(path.join(dir, sub)).toString("base64");
  }
  return out;
}

const lockWithout = (dir: string, field: string) => {
  const lock = JSON.parse(readFileSync(path.join(dir, "skills-lock.json"), "utf8")) as {
    skills: Record<string, Record<string, unknown>>;
  };
  for (const entry of Object.values(lock.skills)) delete entry[field];
  return lock;
};

async function folder(name: string): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

describe.skipIf("skip" in clients)("oracle: Vercel's skills CLI and skillport agree", () => {
  beforeAll(async () => {
    root = await makeTempDir("skillport-oracle-");
    await mkdir(path.join(root, "srv/acme"), { recursive: true });
    await mkdir(path.join(root, "home"));
    daemon = await startGitDaemon(path.join(root, "srv"));
    const { work } = await makeRepo(path.join(root, "srv/acme"), "skills");
    await commitAndPush(work, {
      "skills/alpha/SKILL.md": skillMd("alpha"),
      "skills/beta/SKILL.md": skillMd("beta"),
      "skills/beta/scripts/run.sh": "echo beta\n",
      "skills/beta/references/deep/notes.md": "Notes.\n",
    });
    address = `git://127.0.0.1:${daemon.port}/acme/skills.git`;
    const market = await makeRepo(path.join(root, "srv/acme"), "market");
    await commitAndPush(market.work, {
      ".claude-plugin/marketplace.json": JSON.stringify({
        name: "acme",
        plugins: [
          { name: "code", source: "./plugins/code" },
          { name: "docs", source: "./plugins/docs" },
        ],
      }),
      "plugins/code/skills/review/SKILL.md": skillMd("review"),
      "plugins/code/skills/review/checklist.md": "- tests\n",
      "plugins/docs/skills/write/SKILL.md": skillMd("write"),
    });
    marketAddress = `git://127.0.0.1:${daemon.port}/acme/market.git`;
  });
  afterAll(async () => {
    await daemon?.stop();
    if (root) await removeDir(root);
  });

  it("the same repository added by both gives the same folders, links and lock; each restores the other's lock", async () => {
    const theirs = await folder("theirs");
    const ours = await folder("ours");
    // Theirs links a project agent other than Claude Code only when the agent's folder (`.roo`) exists already.
    await mkdir(path.join(theirs, ".roo"));
    await mkdir(path.join(ours, ".roo"));
    const args = ["add", address, "--skill", "alpha", "beta", "--agent", "claude-code", "roo", "codex"];
    expect((await run("skills", [...args, "-y"], theirs)).code).toBe(0);
    const added = await run("skillport", args, ours);
    expect(added.out).not.toContain("skillport:");
    expect(added.code).toBe(0);
    expect(tree(ours)).toEqual(tree(theirs));
    // Theirs also writes `sourceUrl` (a copy of `source`); every other field is equal, computedHash included.
    expect(lockWithout(ours, "sourceUrl")).toEqual(lockWithout(theirs, "sourceUrl"));

    // Their lock restored by skillport, our lock restored by them.
    const byUs = await folder("restored-by-skillport");
    await copyFile(path.join(theirs, "skills-lock.json"), path.join(byUs, "skills-lock.json"));
    const install = await run("skillport", ["install"], byUs);
    expect(install.code, install.out).toBe(0);
    expect(tree(byUs, ".agents")).toEqual(tree(theirs, ".agents"));
    const byThem = await folder("restored-by-skills");
    await copyFile(path.join(ours, "skills-lock.json"), path.join(byThem, "skills-lock.json"));
    expect((await run("skills", ["experimental_install", "-y"], byThem)).code).toBe(0);
    expect(tree(byThem, ".agents")).toEqual(tree(ours, ".agents"));
  });

  it("a plugin marketplace from git: the same skills, folders and lock (skillPath inside the plugin); each restores the other's", async () => {
    const theirs = await folder("market-theirs");
    const ours = await folder("market-ours");
    // Two agents: with Claude Code alone theirs copies into .claude/skills and keeps no canonical copy (docs/install.md).
    const args = ["add", marketAddress, "--skill", "review", "write", "--agent", "claude-code", "codex"];
    const added = await run("skills", [...args, "-y"], theirs);
    expect(added.code, added.out).toBe(0);
    const mine = await run("skillport", args, ours);
    expect(mine.code, mine.out).toBe(0);
    expect(tree(ours)).toEqual(tree(theirs));
    expect(lockWithout(ours, "sourceUrl")).toEqual(lockWithout(theirs, "sourceUrl"));
    const byUs = await folder("market-restored-by-skillport");
    await copyFile(path.join(theirs, "skills-lock.json"), path.join(byUs, "skills-lock.json"));
    const install = await run("skillport", ["install"], byUs);
    expect(install.code, install.out).toBe(0);
    expect(tree(byUs, ".agents")).toEqual(tree(theirs, ".agents"));
    const byThem = await folder("market-restored-by-skills");
    await copyFile(path.join(ours, "skills-lock.json"), path.join(byThem, "skills-lock.json"));
    expect((await run("skills", ["experimental_install", "-y"], byThem)).code).toBe(0);
    expect(tree(byThem, ".agents")).toEqual(tree(ours, ".agents"));
  });
});
