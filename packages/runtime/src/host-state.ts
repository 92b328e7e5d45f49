import { mkdirSync, realpathSync } from "node:fs";
import path from "node:path";
import { InvalidPathError } from "@skillport/core";
import { readFile } from "node:fs/promises";
import { errorCode, isInside, isMissing, parseStateText, type StateSchema } from "@skillport/fs";
import { privateDirProblem } from "@skillport/sandbox";
import { isVersionId } from "@skillport/pack";
import { writeJsonAtomic } from "./json-file.js";

/**
 * The host-only state folder of a workspace (decision 0140): everything the host TRUSTS about a workspace lives here,
 * never in the workspace, because sandboxed code can rewrite the workspace at any moment.
 *
 * ```
 * <stateDir>/
 *   deploy.lock/            the deploy lock
 *   archives.json           archive sha256 → versionId (a cache; every hit is verified)
 *   versions/<id>.json      the manifest of each deployed version: path, size, sha256 of every file
 *   entrypoints.json        which entrypoints ran (FastGPT's state shape); the source of truth
 *   staging/.tmp-*          unpacks in progress
 * ```
 */
export class HostState {
  readonly dir: string;
  readonly lockDir: string;
  readonly indexFile: string;
  readonly versionsDir: string;
  readonly recordsFile: string;
  readonly stagingDir: string;

  constructor(dir: string) {
    this.dir = dir;
    this.lockDir = path.join(dir, "deploy.lock");
    this.indexFile = path.join(dir, "archives.json");
    this.versionsDir = path.join(dir, "versions");
    this.recordsFile = path.join(dir, "entrypoints.json");
    this.stagingDir = path.join(dir, "staging");
  }

  /**
   * Creates the folder (0700: only the host user) and checks again that it is not inside the workspace. The folder and
   * the sub-folders written by path (`versions`, `staging`) must be this user's own real folders, opened without
   * following links (@skillport/sandbox's privateDirProblem): one planted by another user is refused, never adopted
   * (issue 19). Nobody else can change them afterwards.
   */
  prepare(workspaceRoot: string): void {
    const rootReal = realpathSync(workspaceRoot);
    // Judged before anything is created: by the real path of the deepest folder that exists.
    assertOutside(rootReal, realPathOfMissing(this.dir));
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    requirePrivate(this.dir, "the state folder");
    assertOutside(rootReal, realpathSync(this.dir));
    for (const dir of [this.versionsDir, this.stagingDir]) {
      try {
        mkdirSync(dir, { mode: 0o700 });
      } catch (error) {
        if (errorCode(error) !== "EEXIST") throw error;
      }
      requirePrivate(dir, `the state folder's ${path.basename(dir)}`);
    }
  }

  /**
   * The manifest of a deployed version; undefined when there is none, `{ problem }` when it cannot be read or is not a
   * manifest of that version (decision 0321: the version is then verified as failing, and unpacked again).
   */
  async readManifest(versionId: string): Promise<VersionManifest | { problem: string } | undefined> {
    if (!isVersionId(versionId)) return undefined;
    const z = await import("zod/mini");
    const file = z.object({ path: z.string(), size: z.number(), sha256: z.string() });
    const read = await readStateFile(
      path.join(this.versionsDir, `${versionId}.json`),
      z.object({ versionId: z.literal(versionId), files: z.array(file) }),
    );
    if (read === undefined || "problem" in read)
      return read === undefined ? undefined : { problem: `its manifest in the state folder is ${read.problem}` };
    return { versionId, files: read.value.files };
  }

  async writeManifest(manifest: VersionManifest): Promise<void> {
    await writeJsonAtomic(path.join(this.versionsDir, `${manifest.versionId}.json`), manifest);
  }

  /** Archive sha256 → versionId, a cache whose every hit is verified; a malformed file is empty, with `problem` (0321). */
  async readIndex(): Promise<{ index: Record<string, string>; problem?: string }> {
    const z = await import("zod/mini");
    const read = await readStateFile(this.indexFile, z.record(z.string(), z.string()));
    if (read === undefined) return { index: {} };
    if ("problem" in read)
      return { index: {}, problem: `the archive index (archives.json) is ${read.problem}; rebuilding it` };
    return { index: read.value };
  }

  async writeIndex(index: Record<string, string>): Promise<void> {
    await writeJsonAtomic(this.indexFile, index);
  }
}

/** What a deployed version must contain: every file the archive held, by path, size and sha256. */
export interface VersionManifest {
  versionId: string;
  files: Array<{ path: string; size: number; sha256: string }>;
}

/** A host-only JSON file through its schema: undefined when missing, `{ problem }` when unreadable or malformed. */
async function readStateFile<T>(
  file: string,
  schema: StateSchema<T>,
): Promise<{ value: T } | { problem: string } | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return isMissing(error) ? undefined : { problem: `unreadable (${errorCode(error) ?? String(error)})` };
  }
  return parseStateText(text, schema);
}

/**
 * The default state folder: beside the workspace, `<parent>/.<name>.skillport-state`. The sandbox mounts only the
 * workspace, so it never sees it; being on the same parent keeps it on the same file system (a rename moves a
 * staged version into projects/).
 */
export function defaultStateDir(root: string): string {
  const name = path.basename(root);
  if (name === "") throw new InvalidPathError(root, "a workspace at the file-system root needs an explicit stateDir");
  return path.join(path.dirname(root), `.${name}.skillport-state`);
}

/** The real path `p` would have: its deepest existing ancestor resolved, the missing rest appended. */
function realPathOfMissing(p: string): string {
  const rest: string[] = [];
  let existing = path.resolve(p);
  for (;;) {
    try {
      return path.join(realpathSync(existing), ...rest.reverse());
    } catch {
      if (path.dirname(existing) === existing) return path.resolve(p);
      rest.push(path.basename(existing));
      existing = path.dirname(existing);
    }
  }
}

function requirePrivate(dir: string, what: string): void {
  const problem = privateDirProblem(dir, { fixMode: true });
  if (problem !== undefined)
    throw new InvalidPathError(dir, `${what} ${problem}; remove it or choose another state folder`);
}

/** The state folder may not be the workspace or inside it (sandboxed code could write it there). */
export function assertOutside(root: string, stateDir: string): void {
  if (stateDir === root || isInside(root, stateDir)) {
    throw new InvalidPathError(
      "stateDir",
      "the state folder must be outside the workspace (sandboxed code can write the workspace)",
    );
  }
}
