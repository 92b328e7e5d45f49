import path from "node:path";
import { redactUri } from "@skillport/core/internal";
import { RemoteSourceError } from "../errors.js";

/** A git source address taken apart. */
export interface GitAddress {
  /** What git is given: the repository URL without credentials. */
  url: string;
  /** The address for messages and ids, credentials hidden. */
  display: string;
  /** Branch, tag or full commit id; none means the remote's HEAD. */
  ref?: string;
  /** Folder of skills inside the repository (POSIX, no leading slash). */
  path?: string;
  /** Credentials written in the address (`https://user:token@host/…`), sent as an HTTP header, never on a command line. */
  username?: string;
  password?: string;
}

const TRANSPORTS: Readonly<Record<string, string>> = {
  "git+https": "https",
  "git+http": "http",
  "git+ssh": "ssh",
  "git+file": "file",
  git: "git",
};

/**
 * `git+https://host/repo.git#ref:path`, `git+http://…`, `git+ssh://…`, `git://…` (a git daemon) and
 * `git+file:///abs/repo.git` (`git+file://relative/repo` is resolved against `cwd`). The fragment is `ref`, `ref:path`
 * or `:path`.
 */
export function parseGitAddress(address: string, cwd: string = process.cwd()): GitAddress {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/is.exec(address);
  const transport = match ? TRANSPORTS[(match[1] ?? "").toLowerCase()] : undefined;
  if (!match || transport === undefined) {
    throw new RemoteSourceError(
      `not a git address: ${JSON.stringify(redactUri(address))} (git+https://host/repo.git#ref:path, git+file:///path/repo.git)`,
      "REMOTE_CONFIG",
    );
  }
  let rest = match[2] ?? "";
  let fragment = "";
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    try {
      fragment = decodeURIComponent(rest.slice(hash + 1));
    } catch {
      throw new RemoteSourceError(
        `the #ref:path part of ${JSON.stringify(redactUri(address))} is not valid percent-encoding`,
        "REMOTE_CONFIG",
      );
    }
    rest = rest.slice(0, hash);
  }
  const colon = fragment.indexOf(":");
  const ref = (colon >= 0 ? fragment.slice(0, colon) : fragment).trim();
  const sub = colon >= 0 ? fragment.slice(colon + 1) : "";
  const result: GitAddress = { url: "", display: "" };
  if (ref !== "") result.ref = checkRef(ref);
  const cleanPath = normalizeRepoPath(sub);
  if (cleanPath !== "") result.path = cleanPath;
  if (transport === "file") {
    const local = rest.startsWith("/") ? rest : path.resolve(cwd, rest);
    result.url = `file://${decodeURI(local)}`;
    result.display = `git+file://${local}${hash >= 0 ? `#${fragment}` : ""}`;
    return result;
  }
  let parsed: URL;
  try {
    parsed = new URL(`${transport}://${rest}`);
  } catch {
    throw new RemoteSourceError(`not a valid git address: ${JSON.stringify(redactUri(address))}`, "REMOTE_CONFIG");
  }
  if (parsed.hostname === "" || parsed.hostname.startsWith("-"))
    throw new RemoteSourceError(`a git address needs a host: ${JSON.stringify(redactUri(address))}`, "REMOTE_CONFIG");
  if (transport === "http" || transport === "https") {
    if (parsed.username !== "") result.username = decodeURIComponent(parsed.username);
    if (parsed.password !== "") result.password = decodeURIComponent(parsed.password);
    parsed.username = "";
    parsed.password = "";
  }
  result.url = parsed.href;
  result.display = redactUri(address);
  return result;
}

/** A ref git will not read as an option or a range; a full commit id pins the source. */
export function checkRef(ref: string): string {
  if (ref.startsWith("-") || /[\s~^:?*[\\\0]|\.\.|@\{/.test(ref) || ref.endsWith(".lock") || ref.endsWith("/")) {
    throw new RemoteSourceError(`not a usable git ref: ${JSON.stringify(ref)}`, "REMOTE_CONFIG");
  }
  return ref;
}

/** The skills folder inside the repository, POSIX and relative; `..`, absolute paths and control characters refused. */
export function normalizeRepoPath(input: string): string {
  const trimmed = input.replace(/^\/+|\/+$/g, "");
  if (trimmed === "" || trimmed === ".") return "";
  const parts = trimmed.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.some((p) => p === ".." || /[\0-\x1f\\]/.test(p) || p === ".git")) {
    throw new RemoteSourceError(`not a usable path inside a repository: ${JSON.stringify(input)}`, "REMOTE_CONFIG");
  }
  return parts.join("/");
}

/** A full commit id (SHA-1 or SHA-256): the copy never changes, so the remote is never asked again. */
export function isCommitId(ref: string | undefined): boolean {
  return ref !== undefined && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(ref);
}
