import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { normalizeResourcePath, type EffectivePolicy, type OperatorPolicy } from "@skillport/core";
import {
  isExecutableRunFile,
  RUN_FILE_EXTENSIONS,
  RUN_FILE_FOLDERS,
  secretFileContent,
  type RemoteCodeRunner,
  type RemoteFile,
} from "@skillport/core/internal";
import { isInside, removePinnedTree, resolveConfined, writeFileAtomic } from "@skillport/fs";
import { createSandbox, findBubblewrap, SandboxUnavailableError, type Sandbox } from "@skillport/sandbox";
import { AgentError } from "../errors.js";
import type { BoxSkill } from "../box-skill.js";
import type { CodeExecutionHost } from "./tool-host.js";
import { secretReason } from "../secret-paths.js";
import { DEFAULT_SESSION, skillDirName } from "../skill-id.js";
import type { Tool } from "../tool.js";
import { messageOf } from "../tool.js";
import { createFileTools } from "./file-tools.js";
import { createScriptTool, SKILL_SCRIPT_TOOL } from "./script-tool.js";
import { DEFAULT_ALLOWED_COMMANDS } from "./shell-policy.js";
import { createShellTool, type ShellOptions } from "./shell-tool.js";
import { WorkSpace } from "./work-space.js";

export const DEFAULT_INCLUDE_FOLDERS: readonly string[] = RUN_FILE_FOLDERS;
export const DEFAULT_INCLUDE_EXTENSIONS: readonly string[] = RUN_FILE_EXTENSIONS;
/** Upstream's shell timeout. */
export const DEFAULT_SHELL_TIMEOUT_SECONDS = 300;
const DEFAULT_MAX_UPLOAD_FILES = 1_000;
const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_LISTED_ENTRIES = 1_000;

export interface SandboxChoice {
  /** Default `bubblewrap`; `process` isolates nothing and says so in every result. */
  kind?: "bubblewrap" | "process";
  /** Let commands reach the network (bubblewrap only). Default false. */
  network?: boolean;
  maxProcesses?: number;
  /** Extra host paths mounted read-only. */
  readOnlyPaths?: readonly string[];
  /**
   * The operator's policy for skills (decision 0364): `run_skill_script` runs a skill's scripts under
   * intersection(this, the skill's `metadata` declaration) — an egress proxy for its declared destinations, its
   * declared variables and folders only. Undefined: today's rights.
   */
  leastPrivilege?: OperatorPolicy;
}

/**
 * A package version deployed by `@skillport/runtime` (FastGPT's layout), as `Workspace.codeTarget(versionId)` gives
 * it: commands run in the workspace's own sandbox, in the version's folder, with the version's environment.
 */
export interface DeployedVersionTarget {
  /** The workspace's sandbox (its writable folder is the workspace root); used, never closed, by the agent. */
  sandbox: Sandbox;
  /** `<workspace>/projects/<versionId>`: the work dir of every tool. */
  workDir: string;
  /** Variables for every command (the version's Python environment first on PATH). */
  env?: Record<string, string>;
  /** Every command runs under this policy (`Workspace.codeTarget` gives it when the workspace has an operator policy). */
  policy?: EffectivePolicy;
}

/** The settings `enable()` fixes. */
export interface CodeExecutionSettings {
  workDir: string | undefined;
  deployed: DeployedVersionTarget | undefined;
  uploadDir: string | undefined;
  sessionsDir: string | undefined;
  filter: (path: string) => boolean;
  shell: ShellOptions | undefined;
  read: boolean;
  write: boolean;
  skillScripts: boolean;
  instruction: string | undefined;
  sandbox: SandboxChoice;
  maxFileBytes: number;
  maxUploadFiles: number;
  maxListedEntries: number;
  /** Commands and skill scripts run there instead of in a local sandbox (decision 0440). */
  remote: RemoteCodeRunner | undefined;
}

/**
 * `codeExecution().workDir(dir).uploadDir(dir).includeFolders(set).includeExtensions(set).fileFilter(fn)
 * .withShell(options?).withRead().withWrite().enable()`, with upstream's defaults except where skill files go: skill
 * files under `<uploadDir>/<skill>/` (uploadDir outside every work dir, read-only to the model: decision 0231),
 * scripts/ + assets/ + .py/.js/.sh uploaded; a temporary workDir created on first use and removed at exit. The default
 * session works in the workDir; every other session in a work dir and sandbox of its own (decision 0232). Only the
 * tools asked for are registered; enabling again replaces them.
 */
export class CodeExecutionBuilder {
  readonly #apply: (exec: CodeExecution) => void;
  #workDir: string | undefined;
  #uploadDir: string | undefined;
  #sessionsDir: string | undefined;
  #folders: readonly string[] | undefined;
  #extensions: readonly string[] | undefined;
  #filter: ((path: string) => boolean) | undefined;
  #shell: ShellOptions | undefined;
  #read = false;
  #write = false;
  #scripts = false;
  #instruction: string | undefined;
  #sandbox: SandboxChoice = {};
  #maxFileBytes = DEFAULT_MAX_FILE_BYTES;
  #maxUploadFiles = DEFAULT_MAX_UPLOAD_FILES;
  #maxListedEntries = DEFAULT_MAX_LISTED_ENTRIES;
  #deployed: DeployedVersionTarget | undefined;
  #remote: RemoteCodeRunner | undefined;

  constructor(apply: (exec: CodeExecution) => void) {
    this.#apply = apply;
  }

  /** The directory every tool works in (created when given). Default: a temporary one, removed at exit. */
  workDir(dir: string): this {
    this.#workDir = dir;
    return this;
  }

  /**
   * Where skill files are copied (default: a temporary folder, removed at exit). It must lie outside the work dir and
   * the sessions folder: the model may write those, and it must not rewrite a skill's scripts (decision 0231).
   */
  uploadDir(dir: string): this {
    this.#uploadDir = dir;
    return this;
  }

  /**
   * Work in a package version deployed the FastGPT way (decision 0272): the tools' work dir is the version's folder,
   * commands run in the workspace's sandbox with the version's environment, as `skillport exec --cwd
   * projects/<versionId>` does, so the seed's `python3 skills/<skill>/<script>.py …` runs as written. Not with
   * `workDir()`, `withSkillScripts()` (the version's own scripts are run by command) or sessions other than the default
   * (a deployed workspace is one sandbox: give each user a workspace of their own).
   */
  deployedVersion(target: DeployedVersionTarget): this {
    this.#deployed = target;
    return this;
  }

  /**
   * Run `execute_shell_command` and `run_skill_script` on `runner` (a runner pool: `QueueCodeRunner` of
   * `@skillport/runners`) instead of a local sandbox, with the same results (decision 0440). Each session's commands
   * share a working folder the pool keeps (runners with a session store); a skill's script travels with its run. The
   * file tools work on a local folder those commands never see, so they are not offered with it; nor are
   * `deployedVersion()` and a least-privilege policy (the runners' own sandbox settings apply).
   */
  remote(runner: RemoteCodeRunner): this {
    this.#remote = runner;
    return this;
  }

  /** Where sessions other than the default one get their own work dirs (default: a temporary folder). */
  sessionsDir(dir: string): this {
    this.#sessionsDir = dir;
    return this;
  }

  /** Folders whose files are uploaded (default `scripts/`, `assets/`). Not with `fileFilter`. */
  includeFolders(folders: Iterable<string>): this {
    this.#folders = [...folders].map((f) => (f.endsWith("/") ? f : `${f}/`));
    return this;
  }

  /** Extensions whose files are uploaded wherever they are (default `.py`, `.js`, `.sh`). Not with `fileFilter`. */
  includeExtensions(extensions: Iterable<string>): this {
    this.#extensions = [...extensions].map((e) => (e.startsWith(".") ? e : `.${e}`));
    return this;
  }

  /** Decides for each skill-relative path whether it is uploaded. Not with includeFolders/includeExtensions. */
  fileFilter(filter: (path: string) => boolean): this {
    this.#filter = filter;
    return this;
  }

  /** `execute_shell_command`, in the sandbox. */
  withShell(options: ShellOptions = {}): this {
    this.#shell = options;
    return this;
  }

  /** `view_text_file` and `list_directory`, confined to the workDir. */
  withRead(): this {
    this.#read = true;
    return this;
  }

  /** `write_text_file` and `insert_text_file`, confined to the workDir. */
  withWrite(): this {
    this.#write = true;
    return this;
  }

  /** `run_skill_script`: runs a loaded skill's script by path with an argv (no shell); in every skill's tool group. */
  withSkillScripts(): this {
    this.#scripts = true;
    return this;
  }

  /** The sandbox commands run in. Default bubblewrap, no network. */
  sandbox(choice: SandboxChoice): this {
    this.#sandbox = { ...choice };
    return this;
  }

  /** The prompt section after `</available_skills>`; every `%s` becomes the absolute upload dir. Blank = default. */
  codeExecutionInstruction(template: string | null | undefined): this {
    this.#instruction = template ?? undefined;
    return this;
  }

  /** Largest file the read/write tools and the upload handle. Default 10 MiB. */
  maxFileBytes(bytes: number): this {
    this.#maxFileBytes = bytes;
    return this;
  }

  /** Most files uploaded per skill. Default 1,000. */
  maxUploadFiles(count: number): this {
    this.#maxUploadFiles = count;
    return this;
  }

  /** Most entries one `list_directory` result names (the rest are counted). Default 1,000. */
  maxListedEntries(count: number): this {
    this.#maxListedEntries = count;
    return this;
  }

  /** Checks the settings and registers the tools; throws AgentError (or SandboxUnavailableError) when they cannot work. */
  enable(): CodeExecution {
    if (this.#filter && (this.#folders || this.#extensions)) {
      throw new AgentError(
        "AGENT_CONFIG",
        "fileFilter() cannot be combined with includeFolders()/includeExtensions(); use one or the other",
      );
    }
    const limits = [
      ["maxFileBytes", this.#maxFileBytes],
      ["maxUploadFiles", this.#maxUploadFiles],
      ["maxListedEntries", this.#maxListedEntries],
    ] as const;
    for (const [name, value] of limits) {
      if (!Number.isInteger(value) || value < 1)
        throw new AgentError("AGENT_CONFIG", `${name} must be a positive integer, got ${value}`);
    }
    const deployed = this.#deployed === undefined ? undefined : this.#checkDeployed(this.#deployed);
    if (this.#remote !== undefined) this.#checkRemote();
    const runs = this.#shell !== undefined || this.#scripts;
    const kind = this.#sandbox.kind ?? "bubblewrap";
    if (
      runs &&
      deployed === undefined &&
      this.#remote === undefined &&
      kind === "bubblewrap" &&
      findBubblewrap() === undefined
    ) {
      throw new SandboxUnavailableError(
        "code execution runs commands in bubblewrap, which is not installed (install bubblewrap, or choose sandbox 'process' knowingly: it isolates nothing)",
      );
    }
    const folders = this.#folders ?? DEFAULT_INCLUDE_FOLDERS;
    const extensions = this.#extensions ?? DEFAULT_INCLUDE_EXTENSIONS;
    const filter =
      this.#filter ?? ((p: string) => folders.some((f) => p.startsWith(f)) || extensions.some((e) => p.endsWith(e)));
    const real = (dir: string | undefined) => {
      if (dir === undefined) return undefined;
      mkdirSync(dir, { recursive: true });
      return realpathSync(dir);
    };
    const workDir = real(this.#workDir);
    const sessionsDir = real(this.#sessionsDir);
    const uploadDir = real(this.#uploadDir === undefined ? undefined : path.resolve(workDir ?? ".", this.#uploadDir));
    const overlap = (a: string | undefined, b: string | undefined) =>
      a !== undefined && b !== undefined && (isInside(a, b) || isInside(b, a));
    if (overlap(uploadDir, workDir) || overlap(uploadDir, sessionsDir)) {
      throw new AgentError(
        "AGENT_CONFIG",
        `uploadDir ${uploadDir} must lie outside the work dir and the sessions folder: the model can write those, and skill scripts must stay read-only to it`,
      );
    }
    if (overlap(workDir, sessionsDir))
      throw new AgentError(
        "AGENT_CONFIG",
        `sessionsDir ${sessionsDir} and the work dir ${workDir} must not contain one another: each is one session's only writable folder`,
      );
    if (deployed !== undefined && overlap(uploadDir, deployed.sandbox.writableDir)) {
      throw new AgentError(
        "AGENT_CONFIG",
        `uploadDir ${uploadDir} must lie outside the deployed workspace: sandboxed code can write all of it`,
      );
    }
    const exec = new CodeExecution({
      workDir: deployed?.workDir ?? workDir,
      deployed,
      uploadDir,
      sessionsDir,
      filter,
      shell: this.#shell,
      read: this.#read,
      write: this.#write,
      skillScripts: this.#scripts,
      instruction: this.#instruction,
      sandbox: { ...this.#sandbox, kind },
      maxFileBytes: this.#maxFileBytes,
      maxUploadFiles: this.#maxUploadFiles,
      maxListedEntries: this.#maxListedEntries,
      remote: this.#remote,
    });
    this.#apply(exec);
    return exec;
  }

  #checkRemote(): void {
    const conflict =
      this.#deployed !== undefined
        ? "deployedVersion()"
        : this.#read || this.#write
          ? "withRead()/withWrite() (they work on a local folder the remote commands never see)"
          : this.#sandbox.leastPrivilege !== undefined
            ? "a least-privilege policy (not carried to the runners: their own sandbox settings apply)"
            : undefined;
    if (conflict !== undefined) throw new AgentError("AGENT_CONFIG", `remote() cannot be combined with ${conflict}`);
  }

  #checkDeployed(target: DeployedVersionTarget): DeployedVersionTarget {
    if (this.#workDir !== undefined)
      throw new AgentError(
        "AGENT_CONFIG",
        "workDir() and deployedVersion() cannot be combined: the deployed version's folder is the work dir",
      );
    if (this.#scripts)
      throw new AgentError(
        "AGENT_CONFIG",
        "withSkillScripts() is not offered in a deployed version: its skills' scripts are files of the workspace, run them with the shell tool",
      );
    let workDir: string;
    try {
      workDir = realpathSync(target.workDir);
    } catch {
      throw new AgentError(
        "AGENT_CONFIG",
        `the deployed version folder ${target.workDir} does not exist (deploy the package first)`,
      );
    }
    const root = target.sandbox.writableDir;
    if (workDir === root || !isInside(root, workDir))
      throw new AgentError(
        "AGENT_CONFIG",
        `the deployed version folder ${workDir} is not inside the workspace sandbox's folder ${root}`,
      );
    return { ...target, workDir };
  }
}

/**
 * Temporary folders still to remove at exit. A sandboxed command may still run then (its sandbox dies with this
 * process, after the hook), so the removal never follows a link (a folder swapped for one mid-removal).
 */
const temporary = new Set<string>();
let exitHook = false;
function removeAtExit(dir: string): void {
  temporary.add(dir);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const d of temporary) removeQuietly(d);
  });
}

function removeQuietly(dir: string): void {
  try {
    removePinnedTree(dir);
  } catch {
    // Left in place: a tree nested too deep, or still changing; nothing outside it was touched.
  }
}

/** A fresh private folder (real path) the host owns, removed at exit; `mode` lets the sandbox's user in or not. */
function temporaryDir(prefix: string, mode: number): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  chmodSync(dir, mode);
  removeAtExit(dir);
  return dir;
}

/** Enabled code execution: the directories, the sandboxes, the tools, uploads and the prompt section. */
export class CodeExecution implements CodeExecutionHost {
  readonly settings: CodeExecutionSettings;
  readonly #spaces = new Map<string, WorkSpace>();
  readonly #closing = new Set<Promise<void>>();
  #sessionsDir: string | undefined;
  #uploadDir: string | undefined;
  readonly #temporary = new Set<string>();
  #tools: Tool[] | undefined;
  readonly scriptTool: Tool | undefined;
  readonly #uploaded = new WeakMap<BoxSkill, string>();
  /** Set by the box: which skill a session has loaded. */
  host: { activeSkill(sessionId: string, skillId: string): BoxSkill | undefined } | undefined;

  constructor(settings: CodeExecutionSettings) {
    this.settings = settings;
    this.scriptTool = settings.skillScripts ? createScriptTool(this) : undefined;
  }

  /** The default session's work directory (real path; a temporary one is created on first use). */
  get workDir(): string {
    return this.space(DEFAULT_SESSION).workDir;
  }

  /**
   * A session's work dir and sandbox: the default session's is the configured work dir, every other session's is a
   * folder of its own under the sessions folder, with a sandbox of its own (decision 0232).
   */
  space(sessionId: string): WorkSpace {
    let space = this.#spaces.get(sessionId);
    if (!space) {
      let dir: string;
      let temporary = false;
      const deployed = this.settings.deployed;
      if (deployed !== undefined) {
        if (sessionId !== DEFAULT_SESSION) {
          throw new AgentError(
            "AGENT_CONFIG",
            "a deployed workspace is one sandbox for one session; give each user a box with a workspace of their own",
          );
        }
        space = new WorkSpace(deployed.workDir, {
          makeSandbox: () => deployed.sandbox,
          runs: true,
          temporary: false,
          sandbox: deployed.sandbox,
          env: deployed.env,
          ...(deployed.policy !== undefined && { policy: deployed.policy }),
        });
        this.#spaces.set(sessionId, space);
        return space;
      }
      if (sessionId === DEFAULT_SESSION && this.settings.workDir !== undefined) dir = this.settings.workDir;
      else if (sessionId === DEFAULT_SESSION) {
        dir = this.#temp(temporaryDir("skillport-code-execution-", 0o700));
        temporary = true;
      } else {
        // A digest, not the id: any string is a session id, and the name must be one safe folder name.
        dir = path.join(this.#sessions(), `s-${createHash("sha256").update(sessionId).digest("hex").slice(0, 32)}`);
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        temporary = true;
      }
      const runs = this.settings.shell !== undefined || this.settings.skillScripts;
      space = new WorkSpace(dir, { makeSandbox: (workDir) => this.#makeSandbox(workDir), runs, temporary });
      this.#spaces.set(sessionId, space);
    }
    return space;
  }

  /** Where skill files are uploaded (real path, outside every work dir; a temporary folder unless configured). */
  get uploadDir(): string {
    this.#uploadDir ??= this.settings.uploadDir ?? this.#temp(temporaryDir("skillport-skills-", 0o755));
    return this.#uploadDir;
  }

  /** The folder a skill's files are uploaded to. */
  skillDir(skill: BoxSkill): string {
    return path.join(this.uploadDir, skillDirName(skill.id));
  }

  /** The tools this configuration registers (the script tool is bound to skill groups separately). */
  tools(): Tool[] {
    if (!this.#tools) {
      const tools: Tool[] = [];
      if (this.settings.shell) tools.push(createShellTool(this, this.settings.shell));
      const files = createFileTools(this);
      if (this.settings.read) tools.push(files.view, files.list);
      if (this.settings.write) tools.push(files.write, files.insert);
      this.#tools = tools;
    }
    return this.#tools;
  }

  /** The default session's sandbox (created on first use). */
  sandbox(): Sandbox {
    return this.space(DEFAULT_SESSION).sandbox();
  }

  #makeSandbox(workDir: string): Sandbox {
    return createSandbox({
      kind: this.settings.sandbox.kind ?? "bubblewrap",
      writableDir: workDir,
      network: this.settings.sandbox.network ?? false,
      ...(this.settings.sandbox.maxProcesses !== undefined && { maxProcesses: this.settings.sandbox.maxProcesses }),
      readOnlyPaths: [...(this.settings.sandbox.readOnlyPaths ?? []), this.uploadDir],
    });
  }

  /** The folder the other sessions' work dirs are made in: host-owned, searchable but not listable by the sandbox. */
  #sessions(): string {
    this.#sessionsDir ??= this.settings.sessionsDir ?? this.#temp(temporaryDir("skillport-sessions-", 0o711));
    return this.#sessionsDir;
  }

  #temp(dir: string): string {
    this.#temporary.add(dir);
    return dir;
  }

  /**
   * Copies a freshly activated skill's files that pass the filter to `<uploadDir>/<skill>/` (once per skill version),
   * every write confined by real path. The upload dir lies outside every sandbox-writable tree, so these are plain
   * host writes. Returns the line the load result adds, or undefined when nothing was uploaded.
   */
  async prepareSkill(skill: BoxSkill): Promise<string | undefined> {
    const known = this.#uploaded.get(skill);
    if (known !== undefined) return known || undefined;
    let note = "";
    try {
      const { files, listed } = await this.runFiles(skill);
      if (this.settings.remote !== undefined) {
        // Nothing is copied here: run_skill_script sends the files with each run.
        note =
          listed > 0 && this.settings.skillScripts
            ? `Run its scripts with ${SKILL_SCRIPT_TOOL} (they run on the runner pool; their files travel with each run).`
            : "";
      } else if (listed > 0) {
        const dirName = skillDirName(skill.id);
        const target = path.join(this.uploadDir, dirName);
        await rm(target, { recursive: true, force: true }); // a new version replaces the old files whole
        for (const file of files) {
          const destination = await resolveConfined(this.uploadDir, `${dirName}/${file.path}`, { allowMissing: true });
          await mkdir(path.dirname(destination), { recursive: true });
          await writeFileAtomic(destination, file.bytes, { mode: file.executable ? 0o755 : 0o644 });
        }
        const kept = Math.min(listed, this.settings.maxUploadFiles);
        const more = listed > kept ? ` (${listed - kept} more not copied: limit ${this.settings.maxUploadFiles})` : "";
        note = `Its scripts and assets are in ${target}/ (${kept} file${kept === 1 ? "" : "s"}${more}).`;
      }
    } catch (error) {
      note = `Its files could not be copied for running (${messageOf(error)}).`;
      return note;
    }
    this.#uploaded.set(skill, note);
    return note || undefined;
  }

  /**
   * The skill's files that may run: those passing the filter, never credential files or VCS folders (nor links to
   * them), at most maxUploadFiles, none larger than maxFileBytes. `listed` counts the candidates before the limit.
   */
  async runFiles(skill: BoxSkill): Promise<{ files: RemoteFile[]; listed: number }> {
    const listed = (await skill.reader.listFiles()).filter((p) => p !== "SKILL.md" && this.settings.filter(p));
    const candidates: string[] = [];
    for (const p of listed) if ((await secretReason(skill.reader, p)) === undefined) candidates.push(p);
    const files: RemoteFile[] = [];
    for (const rel of candidates.slice(0, this.settings.maxUploadFiles)) {
      normalizeResourcePath(rel);
      const bytes = await skill.reader.readFile(rel);
      if (bytes.byteLength > this.settings.maxFileBytes || secretFileContent(rel, bytes) !== undefined) continue;
      files.push({ path: rel, bytes, executable: isExecutableRunFile(rel) });
    }
    return { files, listed: candidates.length };
  }

  /** The code-execution section of the system prompt. */
  promptSection(): string {
    const custom = this.settings.instruction;
    if (custom !== undefined && custom.trim() !== "") return custom.trimEnd().replaceAll("%s", this.uploadDir);
    return defaultSection(this);
  }

  /** Stops a session's sandbox and removes its work dir (not the default session's configured one). */
  closeSession(sessionId: string): Promise<void> {
    const space = this.#spaces.get(sessionId);
    if (!space) return Promise.resolve();
    this.#spaces.delete(sessionId);
    const closing: Promise<void> = space.close().finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
    return closing;
  }

  /** Stops every sandbox and removes the temporary folders (after every session being closed is). */
  async close(): Promise<void> {
    for (const id of [...this.#spaces.keys()]) void this.closeSession(id);
    await Promise.allSettled([...this.#closing]);
    for (const dir of this.#temporary) {
      removeQuietly(dir);
      temporary.delete(dir);
    }
    this.#temporary.clear();
    this.#sessionsDir = undefined;
    this.#uploadDir = undefined;
  }
}

/** Example interpreters in the order the default text prefers them. */
const EXAMPLES: ReadonlyArray<{ command: string; script: string }> = [
  { command: "python3", script: "scripts/<script>.py" },
  { command: "python", script: "scripts/<script>.py" },
  { command: "node", script: "scripts/<script>.js" },
  { command: "nodejs", script: "scripts/<script>.js" },
];

/** Built from the configuration, so it never suggests a command the allow-list refuses (upstream said "use ls"). */
function defaultSection(exec: CodeExecution): string {
  const { shell, read, write, skillScripts, remote } = exec.settings;
  if (remote !== undefined) {
    // Nothing is copied to this machine: a skill's scripts travel with each run_skill_script call.
    const lines = ["## Code Execution", ""];
    if (shell) {
      const allowed = shell.allowedCommands ?? DEFAULT_ALLOWED_COMMANDS;
      lines.push(
        "Run commands with execute_shell_command. They run on a runner pool, in a sandbox whose only writable folder is this conversation's working folder (their current directory).",
      );
      lines.push(allowedLine(allowed));
    }
    if (skillScripts)
      lines.push(
        `To run a loaded skill's script, call ${SKILL_SCRIPT_TOOL} with its skillId, the script's path and its arguments.`,
      );
    return lines.join("\n");
  }
  const upload = exec.uploadDir;
  const lines = [
    "## Code Execution",
    "",
    `When a skill is loaded, its scripts and assets are copied to a folder under ${upload}; the load result names the folder.`,
  ];
  if (shell) {
    const allowed = shell.allowedCommands ?? DEFAULT_ALLOWED_COMMANDS;
    lines.push(
      `Run commands with execute_shell_command. They run in a sandbox where only the work directory (their current directory) is writable${exec.settings.sandbox.network ? "" : " and there is no network"}.`,
    );
    lines.push(allowedLine(allowed));
    if (allowed !== "any" && allowed.length > 0) {
      const example = EXAMPLES.find((e) => allowed.includes(e.command));
      if (example) lines.push(`Example: ${example.command} ${upload}/<skill folder>/${example.script}`);
    }
  }
  if (skillScripts)
    lines.push(
      `To run a loaded skill's script directly, call ${SKILL_SCRIPT_TOOL} with its skillId, the script's path and its arguments.`,
    );
  if (read) lines.push("Use list_directory and view_text_file to look at files and folders.");
  if (write) lines.push("Use write_text_file and insert_text_file to create and change files.");
  return lines.join("\n");
}

function allowedLine(allowed: readonly string[] | "any"): string {
  if (allowed === "any") return "Any command may be run.";
  if (allowed.length === 0) return "No command is allowed without approval.";
  return `Allowed commands: ${allowed.join(", ")}. Other commands are refused.`;
}
