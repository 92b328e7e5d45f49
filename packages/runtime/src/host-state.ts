import { mkdirSync, realpathSync } from "node:fs";
import path from "node:path";
import { InvalidPathError } from "@skillport/core";
import { errorCode, isInside } from "@skillport/fs";
import { privateDirProblem } from "@skillport/sandbox";
import { isVersionId } from "@skillport/pack";
import { readJsonRecord, writeJsonAtomic } from "./json-file.js";

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

  async readManifest(versionId: string): Promise<VersionManifest | undefined> {
    if (!isVersionId(versionId)) return undefined;
    const raw = await readJsonRecord(path.join(this.versionsDir, `${versionId}.json`));
    return parseManifest(raw, versionId);
  }

  async writeManifest(manifest: VersionManifest): Promise<void> {
    await writeJsonAtomic(path.join(this.versionsDir, `${manifest.versionId}.json`), manifest);
  }

  async readIndex(): Promise<Record<string, unknown>> {
    return readJsonRecord(this.indexFile);
  }

  async writeIndex(index: Record<string, unknown>): Promise<void> {
    await writeJsonAtomic(this.indexFile, index);
  }
}

/** What a deployed version must contain: every file the archive held, by path, size and sha256. */
export interface VersionManifest {
  versionId: string;
  files: Array<{ path: string; size: number; sha256: string }>;
}

function parseManifest(raw: Record<string, unknown>, versionId: string): VersionManifest | undefined {
  if (raw.versionId !== versionId || !Array.isArray(raw.files)) return undefined;
  const files: VersionManifest["files"] = [];
  for (const f of raw.files as unknown[]) {
    if (typeof f !== "object" || f === null) return undefined;
    const { path: p, size, sha256 } = f as Record<string, unknown>;
    if (typeof p !== "string" || typeof size !== "number" || typeof sha256 !== "string") return undefined;
    files.push({ path: p, size, sha256 });
  }
  return { versionId, files };
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
  if (problem !== undefined) throw new InvalidPathError(dir, `${what} ${problem}; remove it or choose another state folder`);
}

/** The state folder may not be the workspace or inside it (sandboxed code could write it there). */
export function assertOutside(root: string, stateDir: string): void {
  if (stateDir === root || isInside(root, stateDir)) {
    throw new InvalidPathError("stateDir", "the state folder must be outside the workspace (sandboxed code can write the workspace)");
  }
}
