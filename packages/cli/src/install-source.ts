import { existsSync } from "node:fs";
import path from "node:path";
import { redactUri } from "@skillport/core/internal";
import {
  AGENTS,
  detectAgents,
  findAgent,
  InstallError,
  type AgentEnvironment,
  type AgentSpec,
  type LockEntry,
  type LockOrigin,
} from "@skillport/install";
import { CliError, EXIT_ERROR, EXIT_PROBLEMS } from "./io.js";
import { rootScheme } from "./source-uri.js";
import { SKILL_ARCHIVE } from "./install-archive.js";

/**
 * The agents a command installs for, the one rule of add, install and update. `asked`: `--agent` ids (comma lists
 * allowed, `*` for all; an unknown id is a usage error), else the agents detected here (none is an error).
 * `recorded`: the agents skillport-lock.json recorded for the skills (ids no longer known are dropped), else the agents
 * detected here (none: only the canonical copy is written).
 */
export function chooseAgents(
  env: AgentEnvironment,
  choice: { asked: readonly string[] } | { recorded: Iterable<string> },
): AgentSpec[] {
  if ("recorded" in choice) {
    const known = [...new Set(choice.recorded)].flatMap((id) => findAgent(id) ?? []);
    return known.length > 0 ? known : detectAgents(env);
  }
  const ids = choice.asked
    .flatMap((a) => a.split(","))
    .map((a) => a.trim())
    .filter((a) => a !== "");
  if (ids.includes("*")) return [...AGENTS];
  if (ids.length === 0) {
    const found = detectAgents(env);
    if (found.length === 0)
      throw new CliError(`no agent detected here; pass --agent ID (${AGENTS.map((a) => a.id).join(", ")})`);
    return found;
  }
  return ids.map((id) => {
    const agent = findAgent(id);
    if (!agent)
      throw new CliError(`unknown agent ${JSON.stringify(id)}; known agents: ${AGENTS.map((a) => a.id).join(", ")}`);
    return agent;
  });
}

/** The setting that says where GitHub shorthand (`owner/repo`) is fetched from (docs/install.md). */
const GITHUB_BASE_ENV = "SKILLPORT_GITHUB_BASE_URL";
const DEFAULT_GITHUB_BASE = "https://github.com";

/** A `skillport add` source: the address `openSource` opens, and what the lock records about it. */
export interface InstallSource {
  address: string;
  origin: LockOrigin;
  /** Folder inside the repository the address points at (GitHub shorthand and git `#ref:path`), for `skillPath`. */
  repoPath: string;
}

const SHORTHAND = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)((?:\/[^#]*)?)(?:#(.+))?$/;
const GITHUB_TREE =
  /^https:\/\/github\.com\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/tree\/([^/]+)((?:\/.*)?)$/;

/**
 * What a source argument means: an address with a scheme (every source the CLI opens), a GitHub tree URL, a path that
 * exists or starts with `.`, `/` or `~`, else GitHub shorthand `owner/repo[/path][#ref]`.
 */
export function resolveInstallSource(
  input: string,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): InstallSource {
  const tree = GITHUB_TREE.exec(input);
  if (tree) return github(tree[1] ?? "", tree[2] ?? "", tree[4] ?? "", tree[3], env);
  const scheme = rootScheme(input);
  if (scheme !== undefined && !existsSync(path.resolve(cwd, input))) {
    const web = scheme === "http" || scheme === "https";
    const sourceType = scheme.startsWith("git")
      ? "git"
      : web
        ? SKILL_ARCHIVE.test(new URL(input).pathname)
          ? "archive"
          : "well-known"
        : scheme;
    const fragment = input.includes("#") ? input.slice(input.indexOf("#") + 1) : "";
    const [ref, repoPath] = fragment.includes(":")
      ? [fragment.slice(0, fragment.indexOf(":")), fragment.slice(fragment.indexOf(":") + 1)]
      : [fragment, ""];
    // Vercel's CLI records a git source as the clone URL without `#…` (the ref apart) and without the `git+` prefix.
    const source =
      sourceType === "git"
        ? redactUri(input.split("#")[0] ?? input).replace(/^git\+(?=https?:|file:)/i, "")
        : redactUri(input);
    const origin: LockOrigin = { source, sourceType };
    if (sourceType === "git" && ref) origin.ref = ref;
    return { address: input, origin, repoPath: sourceType === "git" ? repoPath.replace(/^\/+|\/+$/g, "") : "" };
  }
  if (/^[./~]/.test(input) || existsSync(path.resolve(cwd, input)))
    return { address: input, origin: { source: input, sourceType: "local" }, repoPath: "" };
  const short = SHORTHAND.exec(input);
  if (short) return github(short[1] ?? "", short[2] ?? "", short[3] ?? "", short[4], env);
  throw new CliError(
    `not a source: ${JSON.stringify(input)} (owner/repo[/path], a path, or an address such as git+https://host/repo.git#ref:path)`,
  );
}

/** The address that re-opens a lock entry's source at `ref` (the recorded commit, when known). */
export function lockEntrySource(
  entry: LockEntry,
  ref: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): { address: string; id: string } {
  const skillDir = entry.skillPath ? path.posix.dirname(entry.skillPath) : "";
  if (entry.sourceType === "github") {
    const [owner = "", repo = ""] = entry.source.split("/");
    const parent = skillDir.includes("/") ? path.posix.dirname(skillDir) : "";
    return { address: github(owner, repo, parent, ref ?? entry.ref, env).address, id: path.posix.basename(skillDir) };
  }
  if (entry.sourceType === "git") {
    const url = entry.source.includes("#") ? entry.source.slice(0, entry.source.indexOf("#")) : entry.source;
    const base = /^(https?|file):/i.test(url) ? `git+${url}` : url;
    const parent = skillDir.includes("/") ? path.posix.dirname(skillDir) : "";
    return {
      address: `${base}#${ref ?? entry.ref ?? ""}${parent ? `:${parent}` : ""}`,
      id: path.posix.basename(skillDir),
    };
  }
  return { address: entry.source, id: "" };
}

function github(
  owner: string,
  repo: string,
  sub: string,
  ref: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): InstallSource {
  const base = (env[GITHUB_BASE_ENV]?.trim() || DEFAULT_GITHUB_BASE).replace(/\/+$/, "");
  const scheme = rootScheme(base);
  if (scheme === undefined || !["https", "http", "git", "file"].includes(scheme))
    throw new CliError(`${GITHUB_BASE_ENV} must be an https://, http://, git:// or file:// URL`);
  const repoPath = sub.replace(/^\/+|\/+$/g, "");
  const fragment = repoPath ? `#${ref ?? ""}:${repoPath}` : ref ? `#${ref}` : "";
  const origin: LockOrigin = { source: `${owner}/${repo}`, sourceType: "github" };
  if (ref) origin.ref = ref;
  return {
    address: `${scheme === "git" ? "" : "git+"}${base}/${owner}/${repo.replace(/\.git$/, "")}.git${fragment}`,
    origin,
    repoPath,
  };
}

/** Runs `fn`, turning the installer's errors into the CLI's one-line errors with their exit codes. */
export async function asCliErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof InstallError)
      throw new CliError(
        error.message,
        error.code === "INSTALL_USAGE" || error.code === "INSTALL_IO" ? EXIT_ERROR : EXIT_PROBLEMS,
      );
    throw error;
  }
}

/** The commit a remote snapshot source serves (git), for the sidecar; undefined for other sources. */
export function revisionOf(provider: object): string | undefined {
  const status = (provider as { status?: () => { revision?: string } }).status;
  return typeof status === "function" ? status.call(provider).revision : undefined;
}
