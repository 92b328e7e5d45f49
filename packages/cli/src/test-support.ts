import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import { npmTools, tempTree as sharedTempTree, type TempTree, type TreeSpec } from "@skillport/testing";
import { runCli } from "./program.js";

// Commands that keep caches (search) write them here, never into the user's own cache folder.
process.env.SKILLPORT_CACHE_DIR ??= mkdtempSync(path.join(os.tmpdir(), "skillport-cli-cache-"));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured output (no colours), as a test would see a piped terminal. */
export async function runInProcess(args: readonly string[], cwd: string): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    color: false,
    progress: false,
    cwd,
  });
  return { code, stdout, stderr };
}

/** A temp directory populated from a map of relative path → content, directory or link (the shared helper). */
export function tempTree(files: TreeSpec): Promise<TempTree> {
  return sharedTempTree(files, "skillport-cli-");
}

export function skillMd(
  name: string,
  description = `Does ${name} things. Use when the user asks for ${name}.`,
  body = `# ${name}\n\nSteps.\n`,
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

/** `tree(files)` for a test file: each call makes a temp tree, all removed after each test. */
export function useTempTrees(): (files: TreeSpec) => Promise<string> {
  let cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(cleanups.map((c) => c()));
    cleanups = [];
  });
  return async (files) => {
    const t = await tempTree(files);
    cleanups.push(t.cleanup);
    return t.dir;
  };
}

/** The BUILT binary (`npm run build`); tests of it skip when it is missing. */
export const builtCli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
export const isBuilt = existsSync(builtCli);
/** `script` from util-linux, to run the CLI on a real pseudo-terminal. */
export const hasScript = spawnSync("script", ["--version"]).status === 0;

const baseEnv = (cwd: string) => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "/",
  SKILLPORT_CACHE_DIR: path.join(cwd, ".cache"),
});

/** Runs the built CLI with stdout and stderr as pipes; output as bytes (a pipe is byte-exact). */
export function runBuilt(
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): { code: number | null; stdout: Buffer; stderr: Buffer } {
  const run = spawnSync(process.execPath, [builtCli, ...args], {
    cwd,
    env: { ...baseEnv(cwd), ...env },
    timeout: 60_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Runs the built CLI on a pseudo-terminal (stdout and stderr both, as a person sees them), TERM=xterm-256color. */
export function runOnTerminal(
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, builtCli, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd,
      env: { ...baseEnv(cwd), TERM: "xterm-256color", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    // The terminal turns each line feed into CR LF; undone here so a test sees what the CLI wrote.
    child.on("close", (code) =>
      resolve({ code, output: Buffer.concat(chunks).toString("utf8").replace(/\r\n/g, "\n") }),
    );
  });
}

/** The real clients the oracle tests drive, pinned: ClawHub's CLI and Vercel's `skills` CLI. */
const ORACLE_CLIENTS = { clawhub: "clawhub@0.23.3", skills: "skills@1.7.4" } as const;

export interface OracleClients {
  /** Node ≥ 22.20 (both clients need it; the repository's floor is Node 20). */
  node: string;
  /** The `clawhub` CLI's script. */
  clawhub: string;
  /** The `skills` CLI's script. */
  skills: string;
}

/**
 * Both clients and Node 22, installed once into the test cache (`npmTools`; decision 0391). `{ skip }` only when the
 * CLI is not built or the npm registry cannot be reached; then the caller's test says why and skips.
 */
export async function oracleClients(): Promise<OracleClients | { skip: string }> {
  if (!isBuilt) return { skip: "the CLI is not built (npm run build)" };
  const tools = await npmTools("oracle-clients-1", [ORACLE_CLIENTS.clawhub, ORACLE_CLIENTS.skills]);
  if ("skip" in tools) return tools;
  return {
    node: tools.node,
    clawhub: tools.file("clawhub", "bin/clawdhub.js"),
    skills: tools.file("skills", "bin/cli.mjs"),
  };
}

/**
 * Starts `skillport registry serve` of the built CLI in `cwd` (SQLite `./r.db`, blobs `./blobs`, a free port, plus
 * `args`) and resolves once it prints its URL; the caller stops `child`.
 */
export async function startBuiltRegistry(
  cwd: string,
  args: readonly string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [builtCli, "registry", "serve", "--port", "0", "--db", "sqlite:./r.db", "--blobs", "./blobs", ...args],
    { cwd, stdio: ["ignore", "pipe", "pipe"] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /registry: (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`serve exited ${code}`)));
  });
  return { child, url };
}
