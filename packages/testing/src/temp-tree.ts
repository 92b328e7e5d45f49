// Real temp trees for tests, in ONE place for every package (files, directories, links).
// No test-runner dependency: each package wraps `tempTree` in its runner's hooks if it wants automatic cleanup.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** A directory (`{ dir: true }`), a symbolic link (`{ link: target }`, written verbatim), or file content. */
export type TreeNode = string | Uint8Array | { link: string } | { dir: true };

/** Relative POSIX path → node. Parents are created as needed; entries are written in the order given. */
export type TreeSpec = Record<string, TreeNode>;

export interface TempTree {
  /** The real path of the new directory (links in tests compare against real paths). */
  dir: string;
  cleanup: () => Promise<void>;
}

/** A fresh, empty temp directory (real path). */
export async function makeTempDir(prefix = "skillport-test-"): Promise<string> {
  return realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Writes files, directories and links under `root`. Link targets are relative to the link's folder, or absolute. */
export async function writeTree(root: string, spec: TreeSpec): Promise<void> {
  for (const [rel, node] of Object.entries(spec)) {
    const abs = path.join(root, ...rel.split("/"));
    await mkdir(path.dirname(abs), { recursive: true });
    if (typeof node === "object" && "link" in node) await symlink(node.link, abs);
    else if (typeof node === "object" && "dir" in node) await mkdir(abs, { recursive: true });
    else await writeFile(abs, node);
  }
}

/** A temp directory populated from `spec`; `cleanup` removes it. */
export async function tempTree(spec: TreeSpec = {}, prefix?: string): Promise<TempTree> {
  const dir = await makeTempDir(prefix);
  await writeTree(dir, spec);
  return { dir, cleanup: () => removeDir(dir) };
}

/** A small valid SKILL.md. */
export function skillMd(
  name: string,
  description = `The ${name} skill.`,
  body = `\n# ${name}\n\nDo the thing.\n`,
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

/**
 * A child process that swaps `dir` for a link to `target` and back, as fast as it can, up to `rounds` times: the
 * attacker of every time-of-check/time-of-use test. Resolves once it is running; the caller kills it.
 */
export async function startFolderSwapper(dir: string, target: string, rounds = 2_000_000): Promise<ChildProcess> {
  const script = `
    const fs = require("node:fs");
    const [dir, aside, target, max] = process.argv.slice(1);
    process.stdout.write("ready\\n");
    for (let i = 0; i < Number(max); i++) {
      fs.renameSync(dir, aside);
      fs.symlinkSync(target, dir);
      fs.unlinkSync(dir);
      fs.renameSync(aside, dir);
    }`;
  const swapper = spawn(process.execPath, ["-e", script, dir, `${dir}.aside`, target, String(rounds)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await once(swapper.stdout!, "data");
  return swapper;
}
