import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, lstat } from "node:fs/promises";
import path from "node:path";
import { InvalidPathError } from "@skillport/core";
import { packDirectory, unpackArchive, type PackOptions, type UnpackOptions } from "@skillport/pack";
import { acquireLock, type LockOptions } from "./lock.js";
import { createSandbox, handOverTree, type Sandbox, type SandboxIdentity, type SandboxKind } from "@skillport/sandbox";
import { runEntrypoints, validateAppEntrypoint, validateEntrypointTimeout, type EntrypointOutcome, type InitializationReport } from "./entrypoints.js";
import { DEFAULT_STATE_PATH } from "./state.js";
import { scanDeployedSkills, type ScanOptions, type ScanResult } from "./scan.js";
import { execCommand, type ExecOptions, type ExecResult } from "./exec.js";
import { assertInside, readJsonRecord, writeJsonAtomic } from "./json-file.js";

/** A package to deploy: a path to an archive (zip, tar, tar.gz, .skill) or a package directory, or archive bytes. */
export type PackageSource = string | Uint8Array;

export interface WorkspaceOptions {
  /** "auto" (default): bubblewrap when installed, else the plain process backend (which says it isolates nothing). */
  sandbox?: SandboxKind | "auto";
  /** HOME inside the sandbox; holds `.fastgpt/runtime/state.json`. Default `<root>/.home`. Must be inside the root. */
  home?: string;
  /** The state file. Default `<home>/.fastgpt/runtime/state.json`. */
  stateFile?: string;
  /** Seconds each entrypoint may run, 1–600. Default 30. */
  entrypointTimeout?: number;
  /** App-level startup script (≤ 16 KiB), run once per sha256 before the versions' entrypoints. */
  appEntrypoint?: string;
  /** Let entrypoints and commands use the network. Default false (an entrypoint that installs packages needs it). */
  network?: boolean;
  /** Variables given to entrypoints and commands (on top of PATH, HOME, LANG, TMPDIR). */
  env?: Record<string, string>;
  maxProcesses?: number;
  /** Memory for one command or entrypoint. Default 1 GiB (see docs/sandbox.md). */
  maxMemoryBytes?: number;
  /** Size of the sandbox's private /tmp. Default 256 MiB. */
  tmpSizeBytes?: number;
  /** Root hosts: the non-root host uid/gid sandboxed code runs as. Default 65534:65534. */
  runAs?: SandboxIdentity;
  lock?: LockOptions;
  unpack?: UnpackOptions;
  pack?: PackOptions;
  scan?: ScanOptions;
}

export type DeployEvent =
  | { type: "lock-acquired" }
  | { type: "source"; index: number; label: string }
  | { type: "version-present"; versionId: string; label: string }
  | { type: "version-unpacking"; label: string }
  | { type: "version-deployed"; versionId: string; label: string; files: number; bytes: number }
  | { type: "version-removed"; versionId: string }
  | { type: "temp-removed"; name: string }
  | { type: "entrypoint-start"; target: string }
  | { type: "entrypoint-done"; outcome: EntrypointOutcome }
  | { type: "initialized"; report: InitializationReport };

export interface DeployOptions {
  onEvent?: (event: DeployEvent) => void;
  /** Run entrypoints after deploying (in the background). Default true; edit/debug flows pass false. */
  runEntrypoints?: boolean;
}

export interface DeployedVersion {
  versionId: string;
  /** `deployed` = unpacked this time; `present` = already there, untouched. */
  status: "deployed" | "present";
  /** The source as given (a path's base name, or `bytes[i]`). */
  label: string;
}

export interface DeployResult {
  versions: DeployedVersion[];
  /** Version directories deleted because they were not selected. */
  removed: string[];
  /**
   * Entrypoints run in the background; deploy does not wait for them. This promise never rejects: failures are in
   * the report (and are retried on the next deploy).
   */
  initialization: Promise<InitializationReport>;
}

/** FastGPT recognises version directories by this shape. */
const VERSION_DIR = /^[a-fA-F0-9]{24}$/;
const TEMP_PREFIX = ".tmp-";

/**
 * A runtime workspace in FastGPT's layout: versions live in `projects/<versionId>/`, entrypoints run once per
 * version in the sandbox, agents run commands through `exec`.
 */
export class Workspace {
  readonly root: string;
  readonly projectsDir: string;
  readonly home: string;
  readonly stateFile: string;
  private readonly options: WorkspaceOptions;
  private readonly internalDir: string;
  private sandboxInstance: Sandbox | undefined;

  constructor(root: string, options: WorkspaceOptions = {}) {
    if (!path.isAbsolute(root)) throw new InvalidPathError(root, "the workspace root must be an absolute path");
    this.root = path.resolve(root);
    this.projectsDir = path.join(this.root, "projects");
    this.home = options.home ?? path.join(this.root, ".home");
    const rel = path.relative(this.root, this.home);
    if (rel.startsWith("..") || path.isAbsolute(rel)) throw new InvalidPathError("home", "the home directory must be inside the workspace");
    this.stateFile = options.stateFile ?? path.join(this.home, DEFAULT_STATE_PATH);
    this.internalDir = path.join(this.root, ".skillport");
    validateEntrypointTimeout(options.entrypointTimeout);
    validateAppEntrypoint(options.appEntrypoint);
    this.options = options;
  }

  /** The sandbox used for entrypoints and commands (created on first use; the root must exist). */
  async sandbox(): Promise<Sandbox> {
    if (!this.sandboxInstance) {
      await mkdir(this.home, { recursive: true });
      this.sandboxInstance = createSandbox({
        kind: this.options.sandbox ?? "auto",
        writableDir: this.root,
        home: this.home,
        network: this.options.network ?? false,
        maxProcesses: this.options.maxProcesses,
        maxMemoryBytes: this.options.maxMemoryBytes,
        tmpSizeBytes: this.options.tmpSizeBytes,
        runAs: this.options.runAs,
      });
    }
    return this.sandboxInstance;
  }

  /**
   * Makes exactly `selection` deployed: unpacks missing versions (temp dir + rename, so a version is all there or
   * absent), removes unselected versions and stale temp dirs, then starts the entrypoints in the background.
   * Safe against concurrent deploys (a lock) and against a deploy killed midway (the next one cleans up).
   */
  async deploy(selection: readonly PackageSource[], options: DeployOptions = {}): Promise<DeployResult> {
    const emit = options.onEvent ?? (() => undefined);
    await mkdir(this.internalDir, { recursive: true });
    await mkdir(this.projectsDir, { recursive: true });
    await assertInside(this.root, this.internalDir);
    await assertInside(this.root, this.projectsDir);
    const release = await acquireLock(path.join(this.internalDir, "deploy.lock"), this.options.lock);
    let released = false;
    const releaseOnce = async () => {
      if (!released) {
        released = true;
        await release();
      }
    };
    try {
      emit({ type: "lock-acquired" });
      await this.removeStaleTemps(emit);
      const versions: DeployedVersion[] = [];
      for (const [index, source] of selection.entries()) {
        const label = typeof source === "string" ? path.basename(source) : `bytes[${index}]`;
        emit({ type: "source", index, label });
        const deployed = await this.deployOne(source, label, emit);
        if (!versions.some((v) => v.versionId === deployed.versionId)) versions.push(deployed);
      }
      const keep = new Set(versions.map((v) => v.versionId));
      const removed: string[] = [];
      for (const name of await this.versionDirs()) {
        if (keep.has(name)) continue;
        await rm(path.join(this.projectsDir, name), { recursive: true, force: true });
        removed.push(name);
        emit({ type: "version-removed", versionId: name });
      }
      const runInit = options.runEntrypoints ?? true;
      // The lock stays held until the entrypoints finish, so a second deploy never races them.
      const initialization = (runInit ? this.initialize(versions, emit) : Promise.resolve(emptyReport())).finally(releaseOnce);
      return { versions, removed, initialization };
    } catch (error) {
      await releaseOnce();
      throw error;
    }
  }

  /** Stops the sandbox's pre-started launcher (optional: an idle one never keeps Node alive). */
  async close(): Promise<void> {
    await this.sandboxInstance?.close();
    this.sandboxInstance = undefined;
  }

  /** Version ids currently deployed (directories under projects/), sorted. */
  async deployedVersions(): Promise<string[]> {
    return (await this.versionDirs()).sort();
  }

  /** The SKILL.md files of the deployed versions (or the given ones) as a SkillProvider. */
  async scanSkills(versionIds?: readonly string[]): Promise<ScanResult> {
    const ids = versionIds ?? (await this.deployedVersions());
    return scanDeployedSkills(this.projectsDir, ids, this.options.scan);
  }

  /** Runs a shell command for an agent in the workspace sandbox; returns FastGPT's observation shape. */
  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const sandbox = await this.sandbox();
    return execCommand(sandbox, command, { ...options, env: { ...this.options.env, ...options.env } });
  }

  private async initialize(versions: readonly DeployedVersion[], emit: (e: DeployEvent) => void): Promise<InitializationReport> {
    let report: InitializationReport;
    try {
      report = await runEntrypoints({
        sandbox: await this.sandbox(),
        projectsDir: this.projectsDir,
        versions: versions.map((v) => v.versionId),
        fresh: new Set(versions.filter((v) => v.status === "deployed").map((v) => v.versionId)),
        stateFile: this.stateFile,
        appEntrypoint: this.options.appEntrypoint,
        timeout: this.options.entrypointTimeout,
        env: this.options.env,
        onStart: (target) => emit({ type: "entrypoint-start", target }),
        onOutcome: (outcome) => emit({ type: "entrypoint-done", outcome }),
      });
    } catch (error) {
      report = { outcomes: [], failed: true, stateProblems: [`initialization failed: ${error instanceof Error ? error.message : String(error)}`] };
    }
    emit({ type: "initialized", report });
    return report;
  }

  private async deployOne(source: PackageSource, label: string, emit: (e: DeployEvent) => void): Promise<DeployedVersion> {
    let bytes: Uint8Array;
    let knownVersion: string | undefined;
    if (typeof source === "string") {
      const info = await stat(source).catch(() => undefined);
      if (!info) throw new InvalidPathError(label, "package not found");
      if (info.isDirectory()) {
        const packed = await packDirectory(source, this.options.pack);
        if (await this.hasVersion(packed.versionId)) {
          emit({ type: "version-present", versionId: packed.versionId, label });
          return { versionId: packed.versionId, status: "present", label };
        }
        bytes = packed.archive;
        knownVersion = packed.versionId;
      } else {
        bytes = await readFile(source);
      }
    } else {
      bytes = source;
    }
    // Same archive bytes as before → same version: skip unpacking entirely.
    const archiveHash = createHash("sha256").update(bytes).digest("hex");
    const index = await readJsonRecord(path.join(this.internalDir, "archives.json"));
    const cached = knownVersion ?? (typeof index[archiveHash] === "string" ? (index[archiveHash] as string) : undefined);
    if (cached && (await this.hasVersion(cached))) {
      emit({ type: "version-present", versionId: cached, label });
      return { versionId: cached, status: "present", label };
    }
    emit({ type: "version-unpacking", label });
    const staging = path.join(this.projectsDir, `${TEMP_PREFIX}${Date.now()}-${randomBytes(6).toString("hex")}`);
    await mkdir(staging);
    try {
      const unpacked = await unpackArchive(bytes, path.join(staging, "package"), this.options.unpack);
      index[archiveHash] = unpacked.versionId;
      await writeJsonAtomic(path.join(this.internalDir, "archives.json"), pruneIndex(index), this.root);
      if (await this.hasVersion(unpacked.versionId)) {
        emit({ type: "version-present", versionId: unpacked.versionId, label });
        return { versionId: unpacked.versionId, status: "present", label };
      }
      // A version is the sandbox user's own (its entrypoint may install into it), handed over before it is visible.
      await handOverTree(path.join(staging, "package"), (await this.sandbox()).identity);
      // The one step that makes a version visible: a rename within projects/, atomic.
      await rename(path.join(staging, "package"), path.join(this.projectsDir, unpacked.versionId));
      emit({ type: "version-deployed", versionId: unpacked.versionId, label, files: unpacked.files.length, bytes: unpacked.totalBytes });
      return { versionId: unpacked.versionId, status: "deployed", label };
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  private async hasVersion(versionId: string): Promise<boolean> {
    try {
      return (await lstat(path.join(this.projectsDir, versionId))).isDirectory();
    } catch {
      return false;
    }
  }

  private async versionDirs(): Promise<string[]> {
    try {
      const entries = await readdir(this.projectsDir, { withFileTypes: true });
      return entries.filter((e) => e.isDirectory() && VERSION_DIR.test(e.name)).map((e) => e.name);
    } catch {
      return [];
    }
  }

  private async removeStaleTemps(emit: (e: DeployEvent) => void): Promise<void> {
    // Only called under the deploy lock: every .tmp- dir belongs to a deploy that died.
    for (const entry of await readdir(this.projectsDir, { withFileTypes: true })) {
      if (!entry.name.startsWith(TEMP_PREFIX)) continue;
      await rm(path.join(this.projectsDir, entry.name), { recursive: true, force: true });
      emit({ type: "temp-removed", name: entry.name });
    }
  }
}

function emptyReport(): InitializationReport {
  return { outcomes: [], failed: false, stateProblems: [] };
}

/** The archive index is only a cache: keep it small. */
function pruneIndex(index: Record<string, unknown>): Record<string, unknown> {
  const entries = Object.entries(index);
  return Object.fromEntries(entries.slice(Math.max(0, entries.length - 256)));
}
