import { stat } from "node:fs/promises";
import path from "node:path";
import { redactUri } from "@skillport/core/internal";
import { CliError } from "./io.js";
import type { OpenedSource, OpenSourceOptions } from "./sources/opened-source.js";

// The two shapes live in sources/opened-source.ts, which the openers import without reaching back here (no cycle).
export type { OpenedSource, OpenSourceOptions } from "./sources/opened-source.js";

/**
 * One address scheme. `open` is loaded on first use, so `skillport list ./skills` never loads a database driver.
 * A scheme without `open` is reserved for a source being built: naming it is a usage error that says so.
 */
interface SourceScheme {
  schemes: readonly string[];
  /** The address form, for usage messages. */
  form: string;
  open?: (address: string, options: OpenSourceOptions) => Promise<OpenedSource>;
  /** Which source will serve it, for a reserved scheme. */
  reservedFor?: string;
}

const openSql = async (address: string, options: OpenSourceOptions) =>
  (await import("./sources/sql.js")).openSqlSource(address, options);
const openMcp = async (address: string, options: OpenSourceOptions) =>
  (await import("./sources/mcp.js")).openMcpSource(address, options);
const openRemote = async (address: string, options: OpenSourceOptions) =>
  (await import("./sources/remote.js")).openRemoteSource(address, options);

/** Every scheme a root may use; a plain path needs none (docs/sources.md). One entry per source. */
const SOURCE_SCHEMES: readonly SourceScheme[] = [
  { schemes: ["sqlite"], form: "sqlite:./skills.db, sqlite:///abs/skills.db, sqlite::memory:", open: openSql },
  { schemes: ["postgres", "postgresql"], form: "postgres://user@host:5432/database", open: openSql },
  { schemes: ["mysql", "mariadb"], form: "mysql://user@host:3306/database", open: openSql },
  {
    schemes: ["git+https", "git+http", "git+ssh", "git+file", "git"],
    form: "git+https://host/repo.git#ref:path, git+file:///path/repo.git",
    open: openRemote,
  },
  { schemes: ["https", "http"], form: "https://host/ (a well-known skills index)", open: openRemote },
  { schemes: ["npm"], form: "npm:<package>", open: openRemote },
  {
    schemes: ["mcp+http", "mcp+https", "mcp+stdio"],
    form: "mcp+http://host:port/mcp, mcp+stdio:<command> (an MCP server with the Skills extension)",
    open: openMcp,
  },
];

/** `scheme` when `root` is written as an address (`x:` with a scheme of two or more characters, so `C:\` is a path). */
export function rootScheme(root: string): string | undefined {
  const match = /^([a-z][a-z0-9+.-]+):/i.exec(root);
  return match ? (match[1] ?? "").toLowerCase() : undefined;
}

/** The one-line list of address forms, for help and usage errors. */
export function sourceForms(): string {
  return ["a folder of skills or a skill folder", ...SOURCE_SCHEMES.filter((s) => s.open).map((s) => s.form)].join(
    "; ",
  );
}

/**
 * Opens a root argument: a path (a folder of skills, or one skill folder) or an address with a known scheme.
 * An unknown scheme is a usage error (exit 2) — unless a file or folder by that exact name exists, which stays a path.
 */
export async function openSource(root: string, options: OpenSourceOptions): Promise<OpenedSource> {
  const scheme = rootScheme(root);
  if (scheme !== undefined && (await isAddress(root, options.cwd))) {
    const entry = SOURCE_SCHEMES.find((s) => s.schemes.includes(scheme));
    if (entry?.open) return entry.open(root, options);
    if (entry)
      throw new CliError(
        `${scheme}: addresses (${entry.form}) are reserved for ${entry.reservedFor}, which is not available yet`,
      );
    throw new CliError(
      `unknown source scheme ${JSON.stringify(`${scheme}:`)} in ${JSON.stringify(displayRoot(root))}; a root is ${sourceForms()} (write ./${root} for a path)`,
    );
  }
  return (await import("./sources/path.js")).openPathSource(root, options);
}

/**
 * Whether a root argument is an address: written with a scheme, and no file or folder of that exact name exists (an
 * existing path always stays a path). The one rule of every command that takes roots.
 */
export async function isAddress(root: string, cwd: string): Promise<boolean> {
  return rootScheme(root) !== undefined && !(await stat(path.resolve(cwd, root)).catch(() => undefined));
}

/** A root for messages: any password hidden. */
function displayRoot(root: string): string {
  return rootScheme(root) === undefined ? root : redactUri(root);
}
