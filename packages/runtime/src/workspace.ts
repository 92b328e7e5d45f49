import { createHash } from "node:crypto";
import { readlinkSync, realpathSync } from "node:fs";
import { lstat, mkdir, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { InvalidPathError } from "@skillport/core";
import { errorCode, isInside, openPinnedDir, randomHex, type PinnedDir } from "@skillport/fs";
import type { PackOptions, UnpackOptions } from "@skillport/pack";
import type { LockOptions } from "./lock.js";
import {
  createSandbox,
  handOverTree,
  type IdRange,
  type Sandbox,
  type SandboxIdentity,
  type SandboxKind,
} from "@skillport/sandbox";
import {
  runEntrypoints,
  validateAppEntrypoint,
  validateEntrypointTimeout,
  type EntrypointOutcome,
  type InitializationReport,
} from "./entrypoints.js";
import { DEFAULT_STATE_PATH } from "./state.js";
import { versionEnv, versionOfCwd } from "./python-env.js";
// Deploy-only modules (lock, archive-file, verify-version, the packer) and scan.js (the skill provider, core's parser,
// yaml) are loaded where used: `exec` must not pay for them (decision 0202; packages/cli/src/start-up-graph.e2e.test.ts).
import type { ScanOptions, ScanResult } from "./scan.js";
import { execCommand, type ExecOptions, type ExecResult } from "./exec.js";
import { ENTRYPOINT_FILE } from "./entrypoints.js";
import { HostState, assertOutside, defaultStateDir, type VersionManifest } from "./host-state.js";
import type { VersionCheck } from "./verify-version.js";
import type { EffectivePolicy, OperatorPolicy } from "@skillport/core";

/** A package to deploy: a path to an archive (zip, tar, tar.gz, .skill) or a package directory, or archive bytes. */
export type PackageSource = string | Uint8Array;

export interface WorkspaceOptions {
  /** "auto" (default): bubblewrap when installed, else the plain process backend (which says it isolates nothing). */
  sandbox?: SandboxKind | "auto";
  /** HOME inside the sandbox; holds `.fastgpt/runtime/state.json`. Default `<root>/.home`. Must be inside the root. */
  home?: string;
  /**
   * The FastGPT-compatible state file, written after entrypoints run and never read (sandboxed code can forge it).
   * Default `<home>/.fastgpt/runtime/state.json`.
   */
  stateFile?: string;
  /**
   * The host-only state folder: deploy lock, archive index, version manifests, entrypoint records, staging. Must be
   * outside the workspace (the sandbox mounts only the workspace) and on the same file system (a staged version is
   * renamed into projects/). Default `<parent>/.<name>.skillport-state` beside the workspace.
   */
  stateDir?: string;
  /** Seconds each entrypoint may run, 1–600. Default 30. */
  entrypointTimeout?: number;
  /** App-level startup script (≤ 16 KiB), run once per sha256 before the versions' entrypoints. */
  appEntrypoint?: string;
  /** Let entrypoints and commands use the network. Default false (an entrypoint that installs packages needs it). */
  network?: boolean;
  /** Variables given to entrypoints and commands (on top of PATH, HOME, LANG, TMPDIR). */
  env?: Record<string, string>;
  /**
   * The operator's policy for skills (decision 0364): entrypoints, commands run in a version's folder and
   * `codeTarget` run under intersection(this, the version's skills' declarations) — an egress proxy for declared
   * destinations, declared variables only, declared folders only. Undefined: today's behaviour.
   */
  leastPrivilege?: OperatorPolicy;
  maxProcesses?: number;
  /** Memory for one command or entrypoint. Default 1 GiB (see docs/sandbox.md). */
  maxMemoryBytes?: number;
  /** Size of the sandbox's private /tmp. Default 256 MiB. */
  tmpSizeBytes?: number;
  /**
   * Root hosts: the non-root host uid/gid sandboxed code runs as. Default 65534:65534 for bubblewrap; for the process
   * backend one of `unisolatedIds` drawn for this workspace (docs/decisions/0245).
   */
  runAs?: SandboxIdentity;
  /** Root hosts, process backend: the uid/gid range its identity is drawn from. Default DEFAULT_UNISOLATED_IDS. */
  unisolatedIds?: IdRange;
  /** bubblewrap launchers started ahead of time (`SandboxOptions.prewarm`); `"first"` for one command, then exit. */
  prewarm?: boolean | "first";
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
  /** A version folder that failed verification against its manifest (or has none) was deleted to be unpacked again. */
  | { type: "version-replaced"; versionId: string; reason: string }
  | { type: "temp-removed"; name: string }
  /** A host-only cache file could not be used (malformed, unreadable) and is being rebuilt (decision 0321). */
  | { type: "state-problem"; message: string }
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
  /** `deployed` = unpacked this time; `present` = already there and verified against its manifest, untouched. */
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
  /** The FastGPT-compatible state file (written, never read). */
  readonly stateFile: string;
  /** The host-only state folder (see WorkspaceOptions.stateDir). */
  readonly stateDir: string;
  /** Which entrypoints ran: the trusted record, in the state folder. */
  readonly entrypointRecordFile: string;
  private readonly options: WorkspaceOptions;
  private readonly state: HostState;
  private readonly homeRel: string;
  private sandboxInstance: Sandbox | undefined;

  constructor(root: string, options: WorkspaceOptions = {}) {
    if (!path.isAbsolute(root)) throw new InvalidPathError(root, "the workspace root must be an absolute path");
    this.root = path.resolve(root);
    this.projectsDir = path.join(this.root, "projects");
    this.home = options.home ?? path.join(this.root, ".home");
    if (!isInside(this.root, path.resolve(this.home)))
      throw new InvalidPathError("home", "the home directory must be inside the workspace");
    this.homeRel = path.relative(this.root, this.home).split(path.sep).join("/");
    this.stateFile = options.stateFile ?? path.join(this.home, DEFAULT_STATE_PATH);
    this.stateDir = path.resolve(options.stateDir ?? defaultStateDir(this.root));
    assertOutside(this.root, this.stateDir);
    this.state = new HostState(this.stateDir);
    this.entrypointRecordFile = this.state.recordsFile;
    validateEntrypointTimeout(options.entrypointTimeout);
    validateAppEntrypoint(options.appEntrypoint);
    this.options = options;
  }

  /** The sandbox used for entrypoints and commands (created on first use, with the root and HOME if missing). */
  async sandbox(): Promise<Sandbox> {
    if (!this.sandboxInstance) {
      await mkdir(this.root, { recursive: true }); // the host's own choice of folder
      // HOME is sandbox-writable: a link or file planted at it is replaced by a fresh folder, never followed.
      openPinnedDir(this.root, this.homeRel, { create: true, repair: true }).close();
      this.sandboxInstance = createSandbox({
        kind: this.options.sandbox ?? "auto",
        writableDir: this.root,
        home: this.home,
        network: this.options.network ?? false,
        maxProcesses: this.options.maxProcesses,
        maxMemoryBytes: this.options.maxMemoryBytes,
        tmpSizeBytes: this.options.tmpSizeBytes,
        runAs: this.options.runAs,
        unisolatedIds: this.options.unisolatedIds,
        prewarm: this.options.prewarm,
      });
    }
    return this.sandboxInstance;
  }

  /**
   * Makes exactly `selection` deployed: unpacks missing versions (in the host-only state folder, then one rename into
   * projects/, so a version is all there or absent), verifies present ones against their manifests (a tampered one is
   * unpacked again), removes unselected versions and stale staging, then starts the entrypoints in the background.
   * Safe against concurrent deploys (a lock in the state folder) and a deploy killed midway (the next one cleans up).
   */
  async deploy(selection: readonly PackageSource[], options: DeployOptions = {}): Promise<DeployResult> {
    const emit = options.onEvent ?? (() => undefined);
    await mkdir(this.root, { recursive: true }); // the host's own choice of folder
    this.state.prepare(this.root);
    const { acquireLock } = await import("./lock.js");
    const release = await acquireLock(this.state.lockDir, this.options.lock);
    let released = false;
    const releaseOnce = async () => {
      if (!released) {
        released = true;
        await release();
      }
    };
    let projects: PinnedDir | undefined;
    try {
      emit({ type: "lock-acquired" });
      // projects/ is opened without following links and every later step goes through that descriptor.
      projects = openPinnedDir(this.root, "projects", { create: true });
      const projectsReal = pinnedRealPath(projects, this.root);
      await this.removeStaleTemps(projects, emit);
      const target: DeployTarget = { projects, projectsReal, manifests: new Map() };
      const versions: DeployedVersion[] = [];
      for (const [index, source] of selection.entries()) {
        const label = typeof source === "string" ? path.basename(source) : `bytes[${index}]`;
        emit({ type: "source", index, label });
        const deployed = await this.deployOne(source, label, target, emit);
        if (!versions.some((v) => v.versionId === deployed.versionId)) versions.push(deployed);
      }
      const keep = new Set(versions.map((v) => v.versionId));
      const removed: string[] = [];
      for (const name of await versionDirs(projects)) {
        if (keep.has(name)) continue;
        await rm(projects.at(name), { recursive: true, force: true });
        await rm(path.join(this.state.versionsDir, `${name}.json`), { force: true });
        removed.push(name);
        emit({ type: "version-removed", versionId: name });
      }
      const withEntrypoint = new Set(
        versions
          .filter((v) => target.manifests.get(v.versionId)?.files.some((f) => f.path === ENTRYPOINT_FILE))
          .map((v) => v.versionId),
      );
      const runInit = options.runEntrypoints ?? true;
      // The lock stays held until the entrypoints finish, so a second deploy never races them.
      const initialization = (
        runInit ? this.initialize(versions, withEntrypoint, emit) : Promise.resolve(emptyReport())
      ).finally(releaseOnce);
      return { versions, removed, initialization };
    } catch (error) {
      await releaseOnce();
      throw error;
    } finally {
      projects?.close();
    }
  }

  /** Stops the sandbox's pre-started launcher (optional: an idle one never keeps Node alive). */
  async close(): Promise<void> {
    await this.sandboxInstance?.close();
    this.sandboxInstance = undefined;
  }

  /** Version ids currently deployed (directories under projects/), sorted. */
  async deployedVersions(): Promise<string[]> {
    let projects: PinnedDir;
    try {
      projects = openPinnedDir(this.root, "projects");
    } catch {
      return [];
    }
    try {
      return (await versionDirs(projects)).sort();
    } finally {
      projects.close();
    }
  }

  /** The SKILL.md files of the deployed versions (or the given ones) as a SkillProvider. */
  async scanSkills(versionIds?: readonly string[]): Promise<ScanResult> {
    const ids = versionIds ?? (await this.deployedVersions());
    const { scanDeployedSkills } = await import("./scan.js");
    // projects/ replaced by a link is not scanned (it would lead the provider out of the workspace).
    let projects: PinnedDir | undefined;
    try {
      projects = openPinnedDir(this.root, "projects");
    } catch (error) {
      if (!(error instanceof InvalidPathError)) return scanDeployedSkills(this.projectsDir, ids, this.options.scan);
      const empty = await scanDeployedSkills(this.projectsDir, [], this.options.scan);
      empty.diagnostics.push({
        code: "scan-link-outside",
        severity: "warning",
        message: "projects/ is a link or not a folder; not scanned",
        file: "",
        line: 0,
        column: 0,
      });
      return empty;
    }
    try {
      return await scanDeployedSkills(pinnedRealPath(projects, this.root), ids, this.options.scan);
    } finally {
      projects.close();
    }
  }

  /**
   * What an agent's code execution needs to work in one deployed version (`@skillport/agent`'s
   * `codeExecution().deployedVersion(…)`, decision 0272): this workspace's sandbox, the version's folder, and the
   * variables `exec` gives a command there (the version's Python environment first on PATH).
   */
  async codeTarget(
    versionId: string,
  ): Promise<{ sandbox: Sandbox; workDir: string; env: Record<string, string>; policy?: EffectivePolicy }> {
    if (!VERSION_DIR.test(versionId)) throw new InvalidPathError(versionId, "is not a versionId (24 hex digits)");
    const sandbox = await this.sandbox();
    const policy = await this.versionPolicy(versionId);
    return {
      sandbox,
      workDir: path.join(sandbox.writableDir, "projects", versionId),
      env: versionEnv(sandbox.writableDir, versionId, this.options.env),
      ...(policy !== undefined && { policy }),
    };
  }

  /** intersection(operator, the version's declarations), when the workspace has an operator policy. */
  private async versionPolicy(versionId: string): Promise<EffectivePolicy | undefined> {
    if (this.options.leastPrivilege === undefined) return undefined;
    // Loaded here: it reads SKILL.md files, which a plain `exec` never parses (decision 0202).
    const { versionPolicy } = await import("./version-policy.js");
    return versionPolicy(this.projectsDir, versionId, this.options.leastPrivilege);
  }

  /** Runs a shell command for an agent in the workspace sandbox; returns FastGPT's observation shape. */
  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const sandbox = await this.sandbox();
    const env = { ...this.options.env, ...options.env };
    // A command run in a version's folder finds that version's Python environment first (decision 0271).
    const version =
      options.cwd === undefined
        ? undefined
        : versionOfCwd(path.relative(this.root, path.resolve(this.root, options.cwd)));
    const policy =
      version === undefined || options.leastPrivilege !== undefined ? undefined : await this.versionPolicy(version);
    return execCommand(sandbox, command, {
      ...options,
      env: version === undefined ? env : versionEnv(sandbox.writableDir, version, env),
      ...(policy !== undefined && { leastPrivilege: { policy, label: `projects/${version}` } }),
    });
  }

  private async initialize(
    versions: readonly DeployedVersion[],
    withEntrypoint: ReadonlySet<string>,
    emit: (e: DeployEvent) => void,
  ): Promise<InitializationReport> {
    let report: InitializationReport;
    try {
      const sandbox = await this.sandbox();
      // Rebased onto the sandbox's real root, so it is written through pinned folders when it lies in the workspace.
      const compatStateFile = isInside(this.root, path.resolve(this.stateFile))
        ? path.join(sandbox.writableDir, path.relative(this.root, this.stateFile))
        : this.stateFile;
      report = await runEntrypoints({
        sandbox,
        projectsDir: this.projectsDir,
        versions: versions.map((v) => v.versionId),
        fresh: new Set(versions.filter((v) => v.status === "deployed").map((v) => v.versionId)),
        stateFile: this.entrypointRecordFile,
        compatStateFile,
        entrypointVersions: withEntrypoint,
        appEntrypoint: this.options.appEntrypoint,
        timeout: this.options.entrypointTimeout,
        env: this.options.env,
        ...(this.options.leastPrivilege !== undefined && {
          policyFor: async (versionId: string) => {
            const policy = await this.versionPolicy(versionId);
            return policy === undefined ? undefined : { policy, label: `projects/${versionId}/${ENTRYPOINT_FILE}` };
          },
        }),
        onStart: (target) => emit({ type: "entrypoint-start", target }),
        onOutcome: (outcome) => emit({ type: "entrypoint-done", outcome }),
      });
    } catch (error) {
      report = {
        outcomes: [],
        failed: true,
        stateProblems: [`initialization failed: ${error instanceof Error ? error.message : String(error)}`],
      };
    }
    emit({ type: "initialized", report });
    return report;
  }

  private async deployOne(
    source: PackageSource,
    label: string,
    target: DeployTarget,
    emit: (e: DeployEvent) => void,
  ): Promise<DeployedVersion> {
    // Loaded here, not at the top: `exec` and the provider never need the packer (decision 0202).
    const [{ DEFAULT_PACKAGE_LIMITS, packDirectory, unpackArchive }, { readPackageSource }] = await Promise.all([
      import("@skillport/pack"),
      import("./archive-file.js"),
    ]);
    let bytes: Uint8Array;
    let knownVersion: string | undefined;
    if (typeof source === "string") {
      const maxBytes = this.options.unpack?.limits?.maxArchiveBytes ?? DEFAULT_PACKAGE_LIMITS.maxArchiveBytes;
      const opened = readPackageSource(source, label, maxBytes);
      if (opened.kind === "directory") {
        const packed = await packDirectory(source, this.options.pack);
        if ((await this.checkVersion(packed.versionId, target, emit)).ok) {
          emit({ type: "version-present", versionId: packed.versionId, label });
          return { versionId: packed.versionId, status: "present", label };
        }
        bytes = packed.archive;
        knownVersion = packed.versionId;
      } else {
        bytes = opened.bytes;
      }
    } else {
      bytes = source;
    }
    // Same archive bytes as before → same version: skip unpacking, once the version is verified.
    const archiveHash = createHash("sha256").update(bytes).digest("hex");
    const { index, problem } = await this.state.readIndex();
    if (problem !== undefined) emit({ type: "state-problem", message: problem });
    const cached =
      knownVersion ?? (typeof index[archiveHash] === "string" ? (index[archiveHash] as string) : undefined);
    if (cached !== undefined && knownVersion === undefined && (await this.checkVersion(cached, target, emit)).ok) {
      emit({ type: "version-present", versionId: cached, label });
      return { versionId: cached, status: "present", label };
    }
    emit({ type: "version-unpacking", label });
    // Staging is in the host-only state folder: sandboxed code can neither see nor plant links in it.
    const staging = path.join(this.state.stagingDir, `${TEMP_PREFIX}${Date.now()}-${randomHex(6)}`);
    await mkdir(staging, { mode: 0o700 });
    try {
      const unpacked = await unpackArchive(bytes, path.join(staging, "package"), this.options.unpack);
      const versionId = unpacked.versionId;
      const manifest: VersionManifest = {
        versionId,
        files: unpacked.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
      };
      await this.state.writeManifest(manifest);
      index[archiveHash] = versionId;
      await this.state.writeIndex(pruneIndex(index));
      const check = await this.checkVersion(versionId, target);
      if (check.ok) {
        emit({ type: "version-present", versionId, label });
        return { versionId, status: "present", label };
      }
      if (check.reason !== "absent") {
        await rm(target.projects.at(versionId), { recursive: true, force: true });
        emit({ type: "version-replaced", versionId, reason: check.reason });
      }
      // A version is the sandbox user's own (its entrypoint may install into it), handed over before it is visible.
      await handOverTree(path.join(staging, "package"), (await this.sandbox()).identity);
      // The one step that makes a version visible: a rename into the pinned projects/ folder, atomic.
      try {
        await rename(path.join(staging, "package"), target.projects.at(versionId));
      } catch (error) {
        if (errorCode(error) === "EXDEV") {
          throw new InvalidPathError(
            "stateDir",
            "the state folder must be on the same file system as the workspace (a staged version is renamed into projects/)",
          );
        }
        throw error;
      }
      target.manifests.set(versionId, manifest);
      emit({ type: "version-deployed", versionId, label, files: unpacked.files.length, bytes: unpacked.totalBytes });
      return { versionId, status: "deployed", label };
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  /**
   * "Present" means verified: a manifest recorded by the host when it unpacked the version, and every file of it
   * in projects/<id>, unchanged, with no link on the way. `absent` when there is no folder at all.
   */
  /** `emit` is told when the version's manifest cannot be read (it is then unpacked again and the manifest rewritten). */
  private async checkVersion(
    versionId: string,
    target: DeployTarget,
    emit?: (e: DeployEvent) => void,
  ): Promise<VersionCheck> {
    let info;
    try {
      info = await lstat(target.projects.at(versionId));
    } catch {
      return { ok: false, reason: "absent" };
    }
    if (!info.isDirectory()) return { ok: false, reason: "not a folder" };
    const manifest = await this.state.readManifest(versionId);
    if (manifest === undefined)
      return { ok: false, reason: "no manifest in the state folder (not deployed by this host)" };
    if ("problem" in manifest) {
      emit?.({ type: "state-problem", message: `version ${versionId}: ${manifest.problem}; unpacking it again` });
      return { ok: false, reason: manifest.problem };
    }
    const { verifyVersion } = await import("./verify-version.js");
    const check = verifyVersion(target.projectsReal, manifest);
    if (check.ok) target.manifests.set(versionId, manifest);
    return check;
  }

  private async removeStaleTemps(projects: PinnedDir, emit: (e: DeployEvent) => void): Promise<void> {
    // Only called under the deploy lock: every staging dir belongs to a deploy that died. projects/.tmp-* are
    // leftovers of older versions of this code (or planted); removing them never follows a link.
    const places: Array<[string, (name: string) => string]> = [
      [this.state.stagingDir, (name) => path.join(this.state.stagingDir, name)],
      [projects.self(), (name) => projects.at(name)],
    ];
    for (const [dir, at] of places) {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        if (!entry.name.startsWith(TEMP_PREFIX)) continue;
        await rm(at(entry.name), { recursive: true, force: true });
        emit({ type: "temp-removed", name: entry.name });
      }
    }
  }
}

interface DeployTarget {
  projects: PinnedDir;
  projectsReal: string;
  /** Manifests of the versions verified in this deploy. */
  manifests: Map<string, VersionManifest>;
}

/** Version ids (FastGPT's shape) among the folders of the pinned projects/. */
async function versionDirs(projects: PinnedDir): Promise<string[]> {
  const entries = await readdir(projects.self(), { withFileTypes: true });
  return entries.filter((e) => e.isDirectory() && VERSION_DIR.test(e.name)).map((e) => e.name);
}

/** Where the pinned folder really is; it must be inside the workspace (it was opened below it without links). */
function pinnedRealPath(dir: PinnedDir, root: string): string {
  const real = readlinkSync(dir.self());
  if (!isInside(realpathSync(root), real))
    throw new InvalidPathError(dir.rel, "resolves outside the workspace; refusing to write there");
  return real;
}

function emptyReport(): InitializationReport {
  return { outcomes: [], failed: false, stateProblems: [] };
}

/** The archive index is only a cache: keep it small. */
function pruneIndex(index: Record<string, string>): Record<string, string> {
  const entries = Object.entries(index);
  return Object.fromEntries(entries.slice(Math.max(0, entries.length - 256)));
}
