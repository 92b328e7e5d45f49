import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { AgentSkillsError } from "@skillport/core";
import type { PluginDescription } from "@skillport/plugin";
import { isInside, walkTree } from "@skillport/fs";
import { findBubblewrap, sandboxedCommand, SandboxUnavailableError, type SandboxedCommand } from "@skillport/sandbox";
import { linkProvidedPackages } from "../host/load.js";
import { permissionFlag } from "../host/sandbox.js";
import { HOST_MODULE_ALIASES } from "./bundle.js";

export { permissionFlag };

/**
 * Resolves the host-provided modules (zod, the SDK and its FastGPT alias) as if imported from this package,
 * so a plugin needs no node_modules of its own. Runs in the loader's hooks thread (Node >= 20.6).
 */
const HOOKS_SOURCE = `
let base; let aliases;
export async function initialize(data) { base = data.base; aliases = data.aliases; }
export async function resolve(specifier, context, next) {
  const target = Object.hasOwn(aliases, specifier) ? aliases[specifier] : specifier.startsWith("zod/") ? specifier : undefined;
  if (target !== undefined) return next(target, { ...context, parentURL: base });
  return next(specifier, context);
}
`;

/** The child's program: import the bundle, check its default export, describe it as JSON on fd 3. */
const LOADER_SOURCE = `
import { register } from "node:module";
import { createWriteStream } from "node:fs";
const request = JSON.parse(process.env.SKILLPORT_PLUGIN_LOAD);
// The plugin sees an empty environment (bubblewrap, when used, adds PWD).
for (const key of Object.keys(process.env)) delete process.env[key];
register("data:text/javascript," + encodeURIComponent(request.hooks), { data: { base: request.base, aliases: request.aliases } });
// fd 3 carries the answer, so whatever plugin code prints cannot corrupt it.
const channel = createWriteStream(null, { fd: 3 });
const send = (message) => new Promise((done) => channel.end(JSON.stringify(message), done));
const kindOf = (value) => value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object that is not a defineTool/defineToolSet result" : typeof value;
try {
  const sdk = await import("@skillport/plugin");
  const mod = await import(request.bundle);
  if (!("default" in mod)) await send({ ok: false, code: "PLUGIN_DEFAULT_EXPORT", message: "the entry has no default export; export default defineTool(...) or defineToolSet(...)" });
  else if (!sdk.isPluginDefinition(mod.default)) await send({ ok: false, code: "PLUGIN_DEFAULT_EXPORT", message: "the default export is " + kindOf(mod.default) + "; export default defineTool(...) or defineToolSet(...)" });
  else await send({ ok: true, description: sdk.describePlugin(mod.default) });
} catch (error) {
  await send({ ok: false, code: "PLUGIN_LOAD_FAILED", message: "loading the bundle failed: " + (error && error.message ? error.message : String(error)) });
}
// Timers or sockets the plugin opened at top level must not keep the loader alive.
process.exit(0);
`;

export interface PluginLoadOptions {
  /** Kills the loader after this many milliseconds (a plugin's top-level code may hang). Default 30 s. */
  timeoutMs?: number;
  /** Caps the loader's answer; a larger description is an error. Default 8 MiB. */
  maxOutputBytes?: number;
  /** Absolute paths replaced by the given labels in messages (host paths never reach users). */
  redact?: ReadonlyArray<readonly [string, string]>;
  /**
   * "auto" (default): import the bundle inside bubblewrap with no network when bubblewrap works here, so
   * top-level code cannot send the builder's files anywhere; "off": Node's permission model only.
   */
  isolateNetwork?: "auto" | "off";
  /** The plugin's own folder (with its node_modules): readable by top-level code besides the bundle's directory. */
  pluginDir?: string;
}

export type PluginLoadFailure = { ok: false; code: string; message: string };
export type PluginLoadResult = { ok: true; description: PluginDescription } | PluginLoadFailure;

const DEFAULT_TIMEOUT_MS = 30_000;

const DEFAULT_MAX_OUTPUT = 8 * 1024 * 1024;

/**
 * Imports a built bundle in a child Node process and reads its definition. The child gets an empty
 * environment (no secrets leak into plugin top-level code) and the bundle's directory as cwd.
 */
export async function loadPluginDescription(
  bundlePath: string,
  options: PluginLoadOptions = {},
): Promise<PluginLoadResult> {
  // Host-provided modules resolve from a private node_modules that links only the SDK and zod, so the loader never
  // needs the host's own package tree.
  const base = await mkdtemp(join(tmpdir(), "skillport-load-"));
  let command: SandboxedCommand | undefined;
  try {
    await chmod(base, 0o755);
    const providedRoots = await linkProvidedPackages(join(base, "node_modules"));
    try {
      command = await loaderCommand(bundlePath, base, providedRoots, options);
    } catch (error) {
      if (error instanceof LinkOutError)
        return { ok: false, code: "PLUGIN_LOAD_FAILED", message: redactWith(options, error.message) };
      if (!(error instanceof SandboxUnavailableError)) throw error;
      return {
        ok: false,
        code: "PLUGIN_LOAD_FAILED",
        message: redactWith(options, `cannot load the bundle: ${error.message}`),
      };
    }
    return await runLoader(command, options);
  } finally {
    await command?.dispose();
    await rm(base, { recursive: true, force: true });
  }
}

/**
 * The loader under the sandbox policy: never host root, no network (where bubblewrap works), and it sees only the
 * bundle's directory, the plugin folder, the SDK and zod (mounted alone inside bubblewrap; the only read grants of
 * Node's permission model either way) plus, inside bubblewrap, the system directories.
 */
async function loaderCommand(
  bundlePath: string,
  base: string,
  providedRoots: readonly string[],
  options: PluginLoadOptions,
): Promise<SandboxedCommand> {
  const request = {
    bundle: pathToFileURL(bundlePath).href,
    base: pathToFileURL(join(base, "loader.mjs")).href,
    aliases: HOST_MODULE_ALIASES,
    hooks: HOOKS_SOURCE,
  };
  const cwd = dirname(bundlePath);
  const readable = [
    ...new Set([cwd, ...(options.pluginDir === undefined ? [] : [options.pluginDir]), base, ...providedRoots]),
  ];
  // Node's permission model: the plugin's top-level code may read (only those paths) but not write files or spawn
  // processes while we only look at its definition (workers are allowed: the resolve hooks run in one, and workers
  // share the process's restrictions). Node 20 has no network switch: bubblewrap provides one where it works.
  const nodeArgs = [
    "--no-warnings",
    permissionFlag(),
    ...readable.map((path) => `--allow-fs-read=${path}`),
    "--allow-worker",
    "--input-type=module",
    "--eval",
    LOADER_SOURCE,
  ];
  const bwrapPath = options.isolateNetwork === "off" ? undefined : await findBubblewrap();
  // Inside bubblewrap only the readable paths exist, so a link out of them leads nowhere. Without it, Node's
  // permission model follows links inside a granted folder to anywhere: refuse to run beside such a link.
  // (The SDK, zod and our own node_modules of links are the host's, not searched.)
  if (bwrapPath === undefined)
    for (const dir of new Set([cwd, ...(options.pluginDir === undefined ? [] : [options.pluginDir])]))
      refuseLinksOut(dir, readable);
  return sandboxedCommand({
    command: [process.execPath, ...nodeArgs],
    bwrapPath,
    readOnlyPaths: [...readable, ...(process.execPath.startsWith("/usr/") ? [] : [process.execPath])],
    cwd,
    keepFds: [3], // the result channel; every other inherited descriptor is closed
    env: { SKILLPORT_PLUGIN_LOAD: JSON.stringify(request) },
    network: false,
    rlimitMemory: false,
  });
}

/** A link in a folder the loader may read that leads out of every such folder (only without bubblewrap). */
class LinkOutError extends AgentSkillsError<"PLUGIN_LOAD_FAILED"> {
  constructor(message: string) {
    super(message, { code: "PLUGIN_LOAD_FAILED" });
  }
}

/** Most directories searched for links (a plugin's node_modules included); more is refused, not skipped. */
const MAX_LINK_SCAN_DIRS = 50_000;

function refuseLinksOut(dir: string, readable: readonly string[]): void {
  const roots = readable.map((path) => realpathSync(path));
  const { excluded, truncated } = walkTree(dir, {
    links: "exclude",
    files: false,
    onProblem: "collect",
    checkNames: false,
    maxDirs: MAX_LINK_SCAN_DIRS,
    maxDepth: 64,
  });
  if (truncated) {
    throw new LinkOutError(
      `cannot load the bundle without bubblewrap: ${dir} has more than ${MAX_LINK_SCAN_DIRS} directories to check for links leading out of it`,
    );
  }
  for (const { path } of excluded) {
    let real: string;
    try {
      real = realpathSync(join(dir, ...path.split("/")));
    } catch {
      continue; // dangling: nothing to read through it
    }
    if (roots.some((root) => isInside(root, real))) continue;
    throw new LinkOutError(
      `cannot load the bundle without bubblewrap: ${join(dir, path)} is a link leading outside the plugin, and Node's permission ` +
        `model would let top-level code read through it; remove the link, or build where bubblewrap works`,
    );
  }
}

function runLoader(command: SandboxedCommand, options: PluginLoadOptions): Promise<PluginLoadResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxOutput = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const redact = (text: string) => redactWith(options, text);
  return new Promise<PluginLoadResult>((resolve) => {
    const child = spawn(command.file, command.args, {
      env: command.env,
      stdio: ["ignore", "ignore", "pipe", "pipe"],
      cwd: command.cwd,
      detached: true, // own process group: a timeout kills whatever top-level code started
    });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = "";
    let failure: PluginLoadFailure | undefined;
    const timer = setTimeout(() => {
      failure = {
        ok: false,
        code: "PLUGIN_LOAD_TIMEOUT",
        message: `loading the bundle took longer than ${timeoutMs} ms (top-level code must not block)`,
      };
      killGroup();
    }, timeoutMs);
    const channel = child.stdio[3] as NodeJS.ReadableStream;
    channel.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxOutput) {
        failure ??= {
          ok: false,
          code: "PLUGIN_LOAD_FAILED",
          message: `the plugin description exceeds ${maxOutput} bytes`,
        };
        killGroup();
        return;
      }
      chunks.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    child.on("error", (error) => {
      failure ??= { ok: false, code: "PLUGIN_LOAD_FAILED", message: `cannot start node: ${error.message}` };
    });
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      if (failure) return resolve({ ...failure, message: redact(failure.message) });
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        const message = JSON.parse(text) as PluginLoadResult;
        if (message.ok) return resolve(message);
        return resolve({ ok: false, code: message.code, message: redact(message.message) });
      } catch {
        const detail =
          stderr
            .trim()
            .split("\n")
            .find((line) => /Error/.test(line)) ?? `exit code ${String(exitCode)}`;
        return resolve({
          ok: false,
          code: "PLUGIN_LOAD_FAILED",
          message: redact(`loading the bundle failed: ${detail}`),
        });
      }
    });
  });
}

/** Absolute paths replaced by their labels (host paths never reach users). */
function redactWith(options: PluginLoadOptions, text: string): string {
  let out = text;
  for (const [path, label] of options.redact ?? []) {
    out = out.split(pathToFileURL(path).href).join(label).split(path).join(label);
  }
  return out;
}
