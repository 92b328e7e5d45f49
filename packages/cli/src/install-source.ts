import { existsSync } from "node:fs";
import path from "node:path";
import { redactUri } from "@skillport/core/internal";
import {
  AGENTS,
  collectSkill,
  computedHash,
  detectAgents,
  findAgent,
  InstallError,
  type AgentEnvironment,
  type AgentSpec,
  type CollectedSkill,
  type LockEntry,
  type LockOrigin,
  type UpstreamName,
  renameSkill,
} from "@skillport/install";
import { CliError, EXIT_ERROR, EXIT_PROBLEMS, type CliOutput } from "./io.js";
import { rootScheme } from "./source-uri.js";
import { openInstallSource, SKILL_ARCHIVE } from "./install-archive.js";
import type { OpenedSource } from "./sources/opened-source.js";

/**
 * The sources one command opened, by address: the skills of one repository at one commit (the usual lock) are read
 * from one open, and its skills listed by one discovery, instead of one of each per skill. `close` closes them all.
 */
export class OpenedSources {
  readonly #open = new Map<string, Promise<OpenedSource>>();
  readonly #ids = new Map<string, Promise<string[]>>();
  constructor(private readonly io: CliOutput) {}

  open(address: string): Promise<OpenedSource> {
    let opened = this.#open.get(address);
    if (opened === undefined) {
      opened = openInstallSource(address, this.io);
      this.#open.set(address, opened);
    }
    return opened;
  }

  /** The skill ids of the source at `address`, discovered once (a lock of 50 skills used to discover it 50 times). */
  ids(address: string): Promise<string[]> {
    let ids = this.#ids.get(address);
    if (ids === undefined) {
      ids = this.open(address).then((o) => (o.only !== undefined ? [o.only] : o.provider.discover()));
      this.#ids.set(address, ids);
    }
    return ids;
  }

  async close(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    this.#ids.clear();
    await Promise.all(all.map((p) => p.then((o) => o.close()).catch(() => undefined)));
  }
}

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
function lockEntrySource(
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

/**
 * Opens the entry's source at `commit` (else the lock's ref) and reads the one skill it names, with the revision the
 * source served (git) for the sidecar. A skill installed under another name (`upstream`, the sidecar's record of
 * `add --as`) is looked up by its upstream name and renamed the same way again (decision 0420); any other skill whose
 * name moved upstream is drift. With `sources`, the source stays open for the next skill of the same address.
 */
export async function fetchLocked(
  io: CliOutput,
  name: string,
  entry: LockEntry,
  commit: string | undefined,
  upstream?: UpstreamName,
  sources?: OpenedSources,
): Promise<CollectedSkill & { revision?: string; upstream?: UpstreamName }> {
  const { address, id } = lockEntrySource(entry, commit, process.env);
  const opened = await (sources?.open(address) ?? openInstallSource(address, io));
  try {
    const ids =
      sources !== undefined
        ? await sources.ids(address)
        : opened.only !== undefined
          ? [opened.only]
          : await opened.provider.discover();
    const look = upstream?.name ?? name;
    const wanted = id !== "" ? ids.find((i) => i === id) : ids.find((i) => i === look || i.split("/").pop() === look);
    if (wanted === undefined) throw new InstallError(`${name}: not found in ${opened.label}`, "INSTALL_DRIFT");
    const skill = await collectSkill(opened.provider, wanted);
    if (skill.name !== look)
      throw new InstallError(`${name}: the source's skill is now named ${JSON.stringify(skill.name)}`, "INSTALL_DRIFT");
    const revision = revisionOf(opened.provider);
    const result =
      upstream === undefined || skill.name === name
        ? skill
        : { ...renameSkill(skill, name), upstream: { name: skill.name, computedHash: computedHash(skill.files) } };
    return revision === undefined ? result : { ...result, revision };
  } finally {
    if (sources === undefined) await opened.close();
  }
}

/** The commit a remote snapshot source serves (git), for the sidecar; undefined for other sources. */
export function revisionOf(provider: object): string | undefined {
  const status = (provider as { status?: () => { revision?: string } }).status;
  return typeof status === "function" ? status.call(provider).revision : undefined;
}
