// Test helpers: real temp directories with real files and links. Not exported from the package.
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export type TreeSpec = Record<string, string | Uint8Array | { link: string } | { dir: true }>;

export async function makeTempDir(prefix = "skillport-fs-"): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Writes files, directories and links (link targets are written verbatim, relative to the link's folder). */
export async function writeTree(root: string, spec: TreeSpec): Promise<void> {
  for (const [rel, content] of Object.entries(spec)) {
    const abs = path.join(root, ...rel.split("/"));
    await mkdir(path.dirname(abs), { recursive: true });
    if (typeof content === "object" && "link" in content) await symlink(content.link, abs);
    else if (typeof content === "object" && "dir" in content) await mkdir(abs, { recursive: true });
    else await writeFile(abs, content);
  }
}

export function skillMd(name: string, description = `The ${name} skill.`, body = `\n# ${name}\n\nDo the thing.\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}
