import { mkdtempSync } from "node:fs";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
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
  const code = await runCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), color: false, progress: false, cwd });
  return { code, stdout, stderr };
}

/** A temp directory populated from a map of relative path → content; removed by the returned cleanup. */
export async function tempTree(files: Record<string, string | Uint8Array>): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-cli-"));
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(dir, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export function skillMd(name: string, description = `Does ${name} things. Use when the user asks for ${name}.`, body = `# ${name}\n\nSteps.\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

/** `tree(files)` for a test file: each call makes a temp tree, all removed after each test. */
export function useTempTrees(): (files: Record<string, string | Uint8Array>) => Promise<string> {
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
