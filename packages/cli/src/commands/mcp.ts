import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { importOptional } from "@skillport/core/internal";
import type { QueueCodeRunner } from "@skillport/runners";
import { CliError, type CliOutput } from "../io.js";
import { loadSkills } from "../load.js";
import { sourceForms } from "../source-uri.js";

interface McpOptions {
  http?: string;
  stdio?: boolean;
  tokenFile?: string;
  tokenEnv: string;
  auth: boolean;
  tools: boolean;
  watch: boolean;
  name: string;
  pageSize: string;
  maxBodyBytes: string;
  rateLimit: string;
  allowedOrigin: string[];
  allowedHost: string[];
  queue?: string;
  tenant: string;
  prefix: string;
}

const TOKEN_ENV = "SKILLPORT_MCP_TOKEN";

function positive(value: string, option: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new CliError(`${option} must be a positive whole number, not ${JSON.stringify(value)}`);
  return n;
}

/** `HOST:PORT`, `[::1]:PORT` or `PORT` (loopback). */
function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(value) ?? /^()()(\d+)$/.exec(value);
  const port = Number(match?.[3]);
  if (match === null || !Number.isInteger(port) || port < 0 || port > 65_535)
    throw new CliError(`--http takes HOST:PORT (e.g. 127.0.0.1:8787), not ${JSON.stringify(value)}`);
  return { host: match[1] || match[2] || "127.0.0.1", port };
}

async function readToken(options: McpOptions, cwd: string): Promise<{ token?: string; from: string }> {
  if (options.tokenFile !== undefined) {
    const file = path.resolve(cwd, options.tokenFile);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) throw new CliError(`--token-file ${options.tokenFile}: no such file`);
    if ((info.mode & 0o077) !== 0)
      throw new CliError(`--token-file ${options.tokenFile} is readable by other users; chmod 600 it first`);
    const token = (await readFile(file, "utf8")).trim();
    if (token === "") throw new CliError(`--token-file ${options.tokenFile} is empty`);
    return { token, from: `$(cat ${file})` };
  }
  const token = process.env[options.tokenEnv]?.trim();
  return token ? { token, from: `$${options.tokenEnv}` } : { from: `$${options.tokenEnv}` };
}

/** The lines a user pastes into Claude Code, Cursor and Codex to reach this server (the token by reference only). */
export function clientConfigLines(
  target: { url: string; tokenRef?: string; envName?: string } | { command: string[] },
  name: string,
): string[] {
  if ("command" in target) {
    const [cmd, ...args] = target.command;
    return [
      `Claude Code:  claude mcp add ${name} -- ${target.command.join(" ")}`,
      `Cursor (.cursor/mcp.json):  ${JSON.stringify({ mcpServers: { [name]: { command: cmd, args } } })}`,
      `Codex (~/.codex/config.toml):  [mcp_servers.${name}] command = ${JSON.stringify(cmd)}  args = ${JSON.stringify(args)}`,
    ];
  }
  const auth = target.tokenRef === undefined ? [] : [`--header "Authorization: Bearer ${target.tokenRef}"`];
  const cursorHeaders =
    target.envName === undefined
      ? target.tokenRef === undefined
        ? {}
        : { headers: { Authorization: `Bearer <the token in ${target.tokenRef.replace(/^\$\(cat (.*)\)$/, "$1")}>` } }
      : { headers: { Authorization: `Bearer \${env:${target.envName}}` } };
  return [
    `Claude Code:  claude mcp add --transport http ${name} ${target.url}${auth.length ? ` ${auth.join(" ")}` : ""}`,
    `Cursor (.cursor/mcp.json):  ${JSON.stringify({ mcpServers: { [name]: { url: target.url, ...cursorHeaders } } })}`,
    `Codex (~/.codex/config.toml):  [mcp_servers.${name}] url = ${JSON.stringify(target.url)}${target.envName !== undefined ? `  bearer_token_env_var = ${JSON.stringify(target.envName)}` : ""}`,
  ];
}

export function registerMcp(program: Command, io: CliOutput): void {
  program
    .command("mcp")
    .description(
      "serve skills over MCP: the Skills extension (SEP-2640) and a tool fallback, over stdio or Streamable HTTP",
    )
    .argument(
      "[roots...]",
      "folders of skills, skill folders or source addresses, highest precedence first (default: .agents/skills and .claude/skills around here)",
    )
    .option("--stdio", "serve on stdin/stdout (the default)")
    .option("--http <host:port>", "serve Streamable HTTP on this address (e.g. 127.0.0.1:8787; port 0 picks one)")
    .option("--token-file <file>", "HTTP: the bearer token, from a file only you can read")
    .option("--token-env <name>", "HTTP: the environment variable holding the bearer token", TOKEN_ENV)
    .option("--no-auth", "HTTP: serve without a token (loopback addresses only)")
    .option(
      "--no-tools",
      "leave out the tool fallback (load_skill_through_path, search_skills) and the catalog resource",
    )
    .option("--no-watch", "serve the skills as they are at start (default: follow changes where the source can)")
    .option("--name <name>", "the server's name (in client configs, the catalog and tool descriptions)", "skillport")
    .option("--page-size <n>", "skills per skills/list page", "100")
    .option("--max-body-bytes <n>", "HTTP: largest request body", String(1024 * 1024))
    .option("--rate-limit <n>", "HTTP: requests per client address per minute", "10000")
    .option("--allowed-origin <origin...>", "HTTP: browser origins allowed besides the server's own", [])
    .option(
      "--allowed-host <host...>",
      "HTTP: Host header values allowed besides the bound address (a name behind a proxy)",
      [],
    )
    .option(
      "--queue <url>",
      "offer run_skill_script with the tool fallback: served skills' scripts run on the runner pool at this NATS address",
    )
    .option("--tenant <name>", "with --queue: whose jobs they are (fair share per tenant)", "default")
    .option("--prefix <name>", "with --queue: subject and stream prefix", "skillport")
    .addHelpText(
      "after",
      `\nSources: ${sourceForms()}.\nHTTP needs a bearer token (at least 16 characters) in $${TOKEN_ENV} (or --token-env NAME) or --token-file; it is never printed.\nThe client configuration lines for Claude Code, Cursor and Codex go to stderr on start.\n\nExamples:\n  skillport mcp examples/skills\n  SKILLPORT_MCP_TOKEN=$(openssl rand -hex 24) skillport mcp examples/skills --http 127.0.0.1:8787\n  skillport mcp ./skills --http 127.0.0.1:0 --no-auth`,
    )
    .action(async (roots: string[], options: McpOptions) => {
      if (options.stdio && options.http !== undefined)
        throw new CliError("--stdio and --http exclude each other; pick one");
      if (!/^[a-z0-9][a-z0-9_-]{0,62}$/i.test(options.name))
        throw new CliError(
          `--name must be letters, digits, '-' or '_' (it goes into client configs), not ${JSON.stringify(options.name)}`,
        );
      const listen = options.http === undefined ? undefined : parseListen(options.http);
      const pageSize = positive(options.pageSize, "--page-size");
      const maxBodyBytes = positive(options.maxBodyBytes, "--max-body-bytes");
      const rateLimit = positive(options.rateLimit, "--rate-limit");
      const token = listen !== undefined && options.auth ? await readToken(options, io.cwd) : undefined;
      const mcp = await importOptional("@skillport/mcp", "skillport mcp", () => import("@skillport/mcp"));
      if (listen !== undefined && !options.auth && !mcp.isLoopback(listen.host))
        throw new CliError(
          `--no-auth is allowed only on a loopback address (127.0.0.1, ::1, localhost), not ${listen.host}`,
        );
      if (token !== undefined && (token.token === undefined || token.token.length < 16)) {
        throw new CliError(
          `serving over HTTP needs a bearer token of at least 16 characters: set ${token.from} or --token-file, or --no-auth on a loopback address`,
        );
      }
      if (options.queue !== undefined && !options.tools)
        throw new CliError("--queue adds run_skill_script to the tool fallback: it cannot go with --no-tools");
      let scripts: QueueCodeRunner | undefined;
      if (options.queue !== undefined) {
        const runners = await importOptional(
          "@skillport/runners",
          "skillport mcp --queue",
          () => import("@skillport/runners"),
        );
        runners.parseQueueAddress(options.queue);
        scripts = new runners.QueueCodeRunner({ queue: options.queue, prefix: options.prefix, tenant: options.tenant });
      }
      const loaded = await loadSkills(roots, io, undefined, { watch: options.watch });
      const log = (message: string) => io.stderr(`skillport mcp: ${message}\n`);
      const skills = await mcp.SkillServer.create(loaded.registry, {
        name: options.name,
        pageSize,
        tools: options.tools,
        watch: options.watch,
        log,
        ...(scripts !== undefined && { scripts }),
      });
      const served = skills.snapshot.skills.length;
      const from = loaded.roots.join(", ") || "no roots found";
      let stop: () => Promise<void>;
      const stopped = new Promise<void>((resolve) => {
        const done = () => resolve();
        process.once("SIGINT", done);
        process.once("SIGTERM", done);
        if (listen === undefined) process.stdin.once("close", done).once("end", done);
      });
      if (listen === undefined) {
        const handle = mcp.serveStdioSkills(skills, (error) => log(error.message));
        stop = () => handle.close();
        log(`serving ${served} skill${served === 1 ? "" : "s"} from ${from} over stdio`);
        const command = ["npx", "skillport", "mcp", ...roots.map((r) => (rootIsPath(r) ? path.resolve(io.cwd, r) : r))];
        for (const line of clientConfigLines({ command }, options.name)) io.stderr(`  ${line}\n`);
      } else {
        const handle = await mcp.serveHttp(skills, {
          host: listen.host,
          port: listen.port,
          ...(token?.token !== undefined && { token: token.token }),
          noAuth: !options.auth,
          maxBodyBytes,
          rateLimit,
          allowedOrigins: options.allowedOrigin,
          allowedHosts: options.allowedHost,
        });
        stop = () => handle.close();
        log(
          `serving ${served} skill${served === 1 ? "" : "s"} from ${from} at ${handle.url}${options.auth ? "" : " (no token: loopback only)"}`,
        );
        const envName = options.tokenFile === undefined && options.auth ? options.tokenEnv : undefined;
        const target = {
          url: handle.url,
          ...(token !== undefined && { tokenRef: token.from }),
          ...(envName !== undefined && { envName }),
        };
        for (const line of clientConfigLines(target, options.name)) io.stderr(`  ${line}\n`);
      }
      await stopped;
      skills.close();
      await stop();
      await scripts?.close();
      await loaded.close();
    });
}

function rootIsPath(root: string): boolean {
  return !/^[a-z][a-z0-9+.-]+:/i.test(root);
}
