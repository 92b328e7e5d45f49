import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isMissing, writeFileAtomic } from "@skillport/fs";
import { CliError, EXIT_ERROR, EXIT_PROBLEMS } from "./io.js";

// The client side of `skillport publish`, `login` and `logout`: where tokens are kept and how the registry's answers
// become one line on the terminal.

interface Credentials {
  version: 1;
  /** The registry `publish` uses without --registry: the last one logged in to. */
  default?: string;
  registries: Record<string, { token: string; user: string }>;
}

/** `$SKILLPORT_CONFIG_DIR`, else `$XDG_CONFIG_HOME/skillport`, else `~/.config/skillport`. */
function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SKILLPORT_CONFIG_DIR) return path.resolve(env.SKILLPORT_CONFIG_DIR);
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(os.homedir(), ".config");
  return path.join(base, "skillport");
}

function credentialsFile(): string {
  return path.join(configDir(), "registry-credentials.json");
}

export async function readCredentials(): Promise<Credentials> {
  try {
    const data = JSON.parse(await readFile(credentialsFile(), "utf8")) as Partial<Credentials>;
    return { version: 1, default: data.default, registries: data.registries ?? {} };
  } catch (error) {
    if (isMissing(error)) return { version: 1, registries: {} };
    throw new CliError(`${credentialsFile()} is not readable credentials JSON; remove it and log in again`, EXIT_ERROR);
  }
}

/** Written whole (temp + rename), mode 0600, in a folder only the user can enter. */
export async function writeCredentials(credentials: Credentials): Promise<string> {
  const file = credentialsFile();
  const { mkdir, chmod } = await import("node:fs/promises");
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}

/** `http(s)://host[:port][/path]` without a trailing slash; anything else is a usage error. */
export function normaliseRegistryUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(
      `--registry: ${JSON.stringify(value)} is not a URL (http://host:port or https://host)`,
      EXIT_ERROR,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new CliError(`--registry: ${JSON.stringify(value)} is not http(s)`, EXIT_ERROR);
  if (url.username || url.password)
    throw new CliError("--registry: put no credentials in the URL; use skillport login", EXIT_ERROR);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** The registry to talk to: --registry, else $SKILLPORT_REGISTRY, else the last one logged in to. */
export async function resolveRegistry(flag: string | undefined): Promise<{ url: string; token: string | undefined }> {
  const credentials = await readCredentials();
  const chosen = flag ?? process.env.SKILLPORT_REGISTRY ?? credentials.default;
  if (chosen === undefined)
    throw new CliError(
      "no registry: pass --registry <url> (or log in to one with skillport login --registry <url>)",
      EXIT_ERROR,
    );
  const url = normaliseRegistryUrl(chosen);
  const token = process.env.SKILLPORT_REGISTRY_TOKEN || credentials.registries[url]?.token;
  return { url, token };
}

/** Calls the registry; an error answer becomes one line (exit 1 for a refused package, else 2). */
export async function callRegistry<T>(
  url: string,
  pathname: string,
  init: { method?: string; token?: string; body?: FormData },
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${url}${pathname}`, {
      method: init.method ?? "GET",
      headers: init.token ? { authorization: `Bearer ${init.token}` } : {},
      body: init.body,
      signal: AbortSignal.timeout(120_000),
    });
  } catch (error) {
    throw new CliError(
      `${url}: the registry did not answer (${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message})`,
      EXIT_ERROR,
    );
  }
  const text = await res.text();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new CliError(`${url}: HTTP ${res.status}, not a Skillport registry answer`, EXIT_ERROR);
  }
  if (!res.ok) {
    const error = (data as { error?: { code?: string; message?: string } }).error;
    const code = error?.code ?? `HTTP ${res.status}`;
    throw new CliError(
      `${url}: ${error?.message ?? "refused"} (${code})`,
      code === "REGISTRY_INVALID_PACKAGE" || code === "REGISTRY_CONFLICT" ? EXIT_PROBLEMS : EXIT_ERROR,
    );
  }
  return data as T;
}
