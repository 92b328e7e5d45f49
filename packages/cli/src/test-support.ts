import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { tempTree as sharedTempTree, type TempTree, type TreeSpec } from "@skillport/fs/testing";
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

/** A temp directory populated from a map of relative path → content, directory or link (the shared helper). */
export function tempTree(files: TreeSpec): Promise<TempTree> {
  return sharedTempTree(files, "skillport-cli-");
}

export function skillMd(name: string, description = `Does ${name} things. Use when the user asks for ${name}.`, body = `# ${name}\n\nSteps.\n`): string {
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
