import { rm } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "@skillport/fs";
import type { Command } from "commander";
import { CliError, EXIT_ERROR, printJson, type CliOutput } from "../io.js";
import { atLeastOne, positiveInteger } from "../options.js";
import { importOptional } from "@skillport/core/internal";

interface ServeOptions {
  db: string;
  blobs?: string;
  mcp: boolean;
  port: number;
  host: string;
  publicUrl?: string;
  readAccess: string;
  maxUploadBytes?: number;
  rateLimit?: number;
  pidFile?: string;
  webUi: boolean;
}

/** `skillport registry serve` and `skillport registry token create`. */
export function registerRegistry(program: Command, io: CliOutput): void {
  const registry = program
    .command("registry")
    .description("run a skill registry, and manage its tokens on the server side");
  registry
    .command("serve")
    .description(
      "serve a registry: REST API, OpenAPI at /openapi.json, the well-known skills index, MCP at /mcp; stops on Ctrl-C",
    )
    .option("--db <address>", "where metadata lives: sqlite:<file> or postgres://…", "sqlite:./registry.db")
    .option(
      "--blobs <dir|postgres>",
      "where package bytes go: a folder, or postgres (in the --db database); default postgres with a postgres:// --db, else ./registry-blobs",
    )
    .option("--port <n>", "port (0: any free one)", positiveInteger, 8787)
    .option("--host <address>", "address to listen on", "127.0.0.1")
    .option("--public-url <url>", "the URL clients reach it by (for absolute links in the index)")
    .option("--read-access <mode>", "public (anyone reads) or token (reads need a read token)", "public")
    .option("--max-upload-bytes <n>", "largest upload (default 16 MiB)", positiveInteger)
    .option(
      "--rate-limit <n>",
      "requests per token (or client address) per minute, per process (default 1200)",
      atLeastOne,
    )
    .option("--no-web-ui", "serve only the API and the index, without the web UI at /")
    .option("--no-mcp", "no MCP endpoint at /mcp")
    .option(
      "--pid-file <file>",
      "write the process id here once it listens (removed on stop): for scripts that start it in the background",
    )
    .addHelpText(
      "after",
      "\nExamples:\n  skillport registry serve --db sqlite:./registry.db --blobs ./blobs --port 8787\n  skillport registry serve --db postgres://user@127.0.0.1/skills",
    )
    .action(async (options: ServeOptions) => {
      if (options.readAccess !== "public" && options.readAccess !== "token")
        throw new CliError("--read-access must be public or token", EXIT_ERROR);
      const { serveRegistry, mcpAddLine } = await importOptional(
        "@skillport/registry",
        "skillport registry",
        () => import("@skillport/registry"),
      );
      const database = databaseAddress(options.db, io.cwd);
      const running = await serveRegistry({
        database,
        blobs: blobsOption(options.blobs, database, io.cwd),
        mcp: options.mcp,
        port: options.port,
        host: options.host,
        publicUrl: options.publicUrl,
        readAccess: options.readAccess,
        webUi: options.webUi,
        limits: options.maxUploadBytes === undefined ? undefined : { maxUploadBytes: options.maxUploadBytes },
        rateLimit: options.rateLimit === undefined ? undefined : { requests: options.rateLimit },
      });
      io.stdout(
        `registry: ${running.url} (OpenAPI: ${running.url}/openapi.json${options.webUi ? `; web UI: ${running.url}/` : ""})\n`,
      );
      io.stdout(`install from it: skillport add ${running.url}\n`);
      if (running.mcp) io.stdout(`MCP: ${mcpAddLine(running.url, options.readAccess)}\n`);
      io.stdout(`ClawHub's CLI: clawhub --registry ${running.url}/clawhub install <name>\n`);
      const pidFile = options.pidFile === undefined ? undefined : path.resolve(io.cwd, options.pidFile);
      if (pidFile !== undefined) await writeFileAtomic(pidFile, `${process.pid}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
      await running.close();
      if (pidFile !== undefined) await rm(pidFile, { force: true });
      io.stdout("registry stopped\n");
    });
  const token = registry.command("token").description("registry tokens, made on the server side (no HTTP)");
  token
    .command("create")
    .description("create a token in the registry's database and print it (only its hash is stored)")
    .requiredOption("--user <name>", "whose token it is")
    .requiredOption("--scope <scope>", "read, publish or admin (repeatable)", (v: string, all: string[] = []) => [
      ...all,
      v,
    ])
    .option("--label <text>", "what it is for")
    .option("--db <address>", "the registry's database", "sqlite:./registry.db")
    .option("--json", "print {token, id, user, scopes}")
    .action(async (options: { user: string; scope: string[]; label?: string; db: string; json?: boolean }) => {
      const { RegistryStore, SCOPES } = await importOptional(
        "@skillport/registry",
        "skillport registry",
        () => import("@skillport/registry"),
      );
      const scopes = options.scope.flatMap((s) => s.split(",")).map((s) => s.trim());
      const bad = scopes.find((s) => !(SCOPES as readonly string[]).includes(s));
      if (bad !== undefined)
        throw new CliError(`--scope: ${JSON.stringify(bad)} is not one of ${SCOPES.join(", ")}`, EXIT_ERROR);
      // Opening creates or migrates the tables, so the first admin token can be made before the first serve.
      const store = await RegistryStore.open({
        database: databaseAddress(options.db, io.cwd),
        blobs: { put: noBlobs, get: noBlobs, remove: noBlobs, discardUpload: noBlobs },
        sweepOnOpen: false,
      });
      try {
        const made = await store.createToken({
          user: options.user,
          scopes: scopes as Array<(typeof SCOPES)[number]>,
          label: options.label,
        });
        if (options.json) return printJson(io, made);
        io.data(`${made.token}\n`);
      } finally {
        await store.close();
      }
    });
}

async function noBlobs(): Promise<never> {
  throw new CliError("token create does not touch package bytes", EXIT_ERROR);
}

/** `--blobs`: `postgres` (in the database, which must be PostgreSQL), a folder; absent: as the database suggests. */
function blobsOption(blobs: string | undefined, database: string, cwd: string): string {
  const postgres = /^postgres(ql)?:\/\//.test(database);
  if (blobs === "postgres") {
    if (!postgres)
      throw new CliError("--blobs postgres needs a postgres:// --db (blobs live in that database)", EXIT_ERROR);
    return "postgres";
  }
  if (blobs === undefined) return postgres ? "postgres" : path.resolve(cwd, "registry-blobs");
  return path.resolve(cwd, blobs);
}

/** A relative SQLite path is relative to the working folder the user gave. */
function databaseAddress(db: string, cwd: string): string {
  const match = /^sqlite:(?!\/\/|:memory:)(.+)$/.exec(db);
  return match?.[1] ? `sqlite:${path.resolve(cwd, match[1])}` : db;
}
