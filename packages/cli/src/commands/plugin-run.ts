import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { InvalidArgumentError, Option, type Command } from "commander";
import {
  createLocalServices,
  PluginHost,
  PluginHostError,
  type BubblewrapMode,
  type PluginHostErrorCode,
  type RunOptions,
} from "@skillport/plugin-host";
import type { SystemVar, TeamInfo, UserInfo, WecomCorpToken } from "@skillport/plugin";
import { parseSeconds } from "../options.js";
import { safeJson } from "../terminal-text.js";
import { CliError, colors, EXIT_ERROR, EXIT_PROBLEMS, type CliOutput } from "../io.js";

interface RunFlags {
  tool?: string;
  input: string;
  secrets?: string;
  json?: boolean;
  uploadDir?: string;
  allowNetwork?: boolean;
  bubblewrap: BubblewrapMode;
  timeout?: string;
  heap?: number;
  systemVar?: string;
  strictOutput?: boolean;
  services?: string;
}

/** What `--services` may configure for the local stand-in host (FastGPT's local debug host answers the same calls). */
interface LocalServiceValues {
  user?: UserInfo;
  team?: TeamInfo;
  wecomCorpToken?: WecomCorpToken;
}

/** Failures that mean "you called it wrong" (exit 2) rather than "the tool failed" (exit 1). */
const USAGE_CODES: ReadonlySet<PluginHostErrorCode> = new Set([
  "PLUGIN_INPUT_INVALID",
  "PLUGIN_SECRETS_INVALID",
  "PLUGIN_TOOL_NOT_FOUND",
]);

/** Adds `skillport plugin run` to the `plugin` command group. */
export function addPluginRunCommand(plugin: Command, io: CliOutput, setExit: (code: number) => void): void {
  plugin
    .command("run <source>")
    .description("run one tool of a built plugin (dist/ dir, plugin folder or .pkg) in the sandboxed host")
    .option("--tool <childId>", "tool to run (required when the plugin has several)")
    .requiredOption("--input <json|@file>", "tool input as JSON, or @path to a JSON file")
    .option("--secrets <json|@file>", "secrets as JSON, or @path to a JSON file (never printed)")
    .option("--upload-dir <dir>", "folder ctx.invoke.uploadFile writes to (uploads are refused without it)")
    .option(
      "--services <json|@file>",
      'answers for ctx.invoke: {"user": {...}, "team": {...}, "wecomCorpToken": {...}} (others are "not configured")',
    )
    .option("--allow-network", "let the plugin open network connections")
    .addOption(
      new Option("--bubblewrap <mode>", "run workers in bubblewrap")
        .choices(["auto", "require", "off"])
        .default("auto"),
    )
    .option(
      "--system-var <json|@file>",
      'systemVar fields for the call as JSON (app, chat, time), e.g. \'{"chat":{"chatId":"c1"}}\'',
    )
    .option("--timeout <seconds>", "stop the call after this many seconds, 1-600 (default 120)")
    .option("--heap <mb>", "worker heap limit in MB", atLeastOne)
    .option("--strict-output", "fail the call when its output breaks outputSchema (default: warn and print it)")
    .option("--json", "print each event as one JSON line (NDJSON) as it arrives")
    .action(async (source: string, flags: RunFlags) => {
      const input = await readJsonOption(io, "--input", flags.input);
      const systemVar =
        flags.systemVar === undefined ? undefined : await readJsonOption(io, "--system-var", flags.systemVar);
      if (
        systemVar !== undefined &&
        (typeof systemVar !== "object" || systemVar === null || Array.isArray(systemVar))
      ) {
        throw new CliError("--system-var must be a JSON object", EXIT_ERROR);
      }
      const secrets = flags.secrets === undefined ? undefined : await readJsonOption(io, "--secrets", flags.secrets);
      if (secrets !== undefined && (typeof secrets !== "object" || secrets === null || Array.isArray(secrets))) {
        throw new CliError("--secrets must be a JSON object", EXIT_ERROR);
      }
      const services = flags.services === undefined ? {} : await readJsonOption(io, "--services", flags.services);
      if (typeof services !== "object" || services === null || Array.isArray(services))
        throw new CliError("--services must be a JSON object", EXIT_ERROR);
      const host = await loadHost(io, source, flags, services as LocalServiceValues);
      try {
        const toolId = pickTool(host, flags.tool);
        if (!flags.json) describeHost(io, host, toolId);
        const options: RunOptions = {
          ...(secrets === undefined ? {} : { secrets: secrets as Record<string, unknown> }),
          ...(systemVar === undefined ? {} : { systemVar: systemVar as Partial<SystemVar> }),
        };
        const code = await runAndPrint(io, host, toolId, input, options, flags.json === true);
        if (code !== 0) setExit(code);
      } finally {
        await host.close();
      }
    });
}

const constant =
  <T>(value: T) =>
  (): T =>
    structuredClone(value);

/** A zero timeout or heap would make every call fail; refuse it as a usage error. */
function atLeastOne(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError(`expected a whole number ≥ 1, got ${JSON.stringify(value)}`);
  return parsed;
}

async function loadHost(
  io: CliOutput,
  source: string,
  flags: RunFlags,
  values: LocalServiceValues,
): Promise<PluginHost> {
  // Seconds, as every other --timeout of this CLI.
  const timeoutSeconds = parseSeconds(flags.timeout, "--timeout");
  try {
    return await PluginHost.load(resolve(io.cwd, source), {
      allowNetwork: flags.allowNetwork === true,
      bubblewrap: flags.bubblewrap,
      services: createLocalServices({
        ...(flags.uploadDir === undefined ? {} : { uploadDir: resolve(io.cwd, flags.uploadDir) }),
        ...(values.user === undefined ? {} : { user: values.user }),
        ...(values.team === undefined ? {} : { team: values.team }),
        ...(values.wecomCorpToken === undefined ? {} : { wecomCorpToken: constant(values.wecomCorpToken) }),
      }),
      ...(flags.heap === undefined ? {} : { maxHeapMb: flags.heap }),
      ...(flags.strictOutput === true ? { strictOutput: true } : {}),
      ...(timeoutSeconds === undefined ? {} : { pool: { callTimeoutMs: timeoutSeconds * 1000 } }),
    });
  } catch (error) {
    if (error instanceof PluginHostError) throw new CliError(error.message, EXIT_ERROR);
    throw error;
  }
}

function pickTool(host: PluginHost, wanted: string | undefined): string {
  const ids = host.toolInfo.map((tool) => tool.id);
  if (wanted !== undefined) {
    if (!ids.includes(wanted))
      throw new CliError(
        `plugin "${host.identity.pluginId}" has no tool "${wanted}" (tools: ${ids.join(", ")})`,
        EXIT_ERROR,
      );
    return wanted;
  }
  const [only, ...rest] = ids;
  if (only === undefined || rest.length > 0) {
    throw new CliError(
      `plugin "${host.identity.pluginId}" has several tools; choose one with --tool (${ids.join(", ")})`,
      EXIT_ERROR,
    );
  }
  return only;
}

/** A plugin kept off the network fails with Node's bare "fetch failed" (or a refused connection): say why. */
function networkHint(host: PluginHost, message: string): string {
  if (
    !host.status.networkIsolated ||
    !/fetch failed|ENOTFOUND|ECONNREFUSED|EAI_AGAIN|ENETUNREACH|network/i.test(message)
  )
    return "";
  return " (the plugin runs without network access; pass --allow-network to let it connect)";
}

/** One stderr line saying what runs and how isolated it really is (stdout stays the tool's output). */
function describeHost(io: CliOutput, host: PluginHost, toolId: string): void {
  const c = colors(io);
  const { pluginId, version, hash } = host.identity;
  const { bubblewrap, networkIsolated, maxHeapMb } = host.status;
  const sandbox = `${bubblewrap ? "bubblewrap + " : ""}node permissions, network ${networkIsolated ? "isolated" : "NOT isolated"}, heap ${maxHeapMb} MB`;
  io.stderr(c.dim(`running ${pluginId}@${version} (${hash}) tool "${toolId}" — ${sandbox}\n`));
}

async function runAndPrint(
  io: CliOutput,
  host: PluginHost,
  toolId: string,
  input: unknown,
  options: RunOptions,
  json: boolean,
): Promise<number> {
  const c = colors(io);
  for await (const event of host.run(toolId, input, options)) {
    if (json) {
      io.stdout(safeJson(event) + "\n");
    } else if (event.type === "stream") {
      io.stdout(c.cyan(`[${event.data.type}] `) + event.data.content + "\n");
    } else if (event.type === "response") {
      io.stdout(safeJson(event.data, 2) + "\n");
    } else if (event.type === "warning") {
      io.stderr(c.yellow(`skillport: warning: ${event.data}`) + "\n");
    } else {
      io.stderr(`skillport: ${event.data}${networkHint(host, event.data)}\n`);
    }
    if (event.type === "error") return USAGE_CODES.has(event.code) ? EXIT_ERROR : EXIT_PROBLEMS;
  }
  return 0;
}

/** `--input in.json` names a file without the `@`: say how to pass it. */
function fileHint(io: CliOutput, flag: string, value: string): string {
  if (value.startsWith("@") || /^\s*[[{"]/.test(value) || !existsSync(resolve(io.cwd, value))) return "";
  return ` (to read the file ${JSON.stringify(value)}, write ${flag} @${value})`;
}

/** `--input '{"a":1}'` or `--input @input.json` (relative to the working directory). */
async function readJsonOption(io: CliOutput, flag: string, value: string): Promise<unknown> {
  let text = value;
  if (value.startsWith("@")) {
    const file = value.slice(1);
    try {
      text = await readFile(resolve(io.cwd, file), "utf8");
    } catch {
      throw new CliError(`${flag}: cannot read file ${JSON.stringify(file)}`, EXIT_ERROR);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // JSON.parse quotes the text it choked on: never echo secrets.
    const detail = flag === "--secrets" ? "" : `: ${(error as Error).message}`;
    throw new CliError(`${flag} is not valid JSON${detail}${fileHint(io, flag, value)}`, EXIT_ERROR);
  }
}
