import { GitSkillSource, type SnapshotSource } from "@skillport/remote";
import { redactUri } from "@skillport/core/internal";
import { CliError } from "../io.js";
import type { OpenedSource, OpenSourceOptions } from "./opened-source.js";

/**
 * A remote address: a git repository, a well-known skills index, or an installed npm package. All read-only (`copy`
 * cannot write to them). Git and HTTP copies live in the user's cache folder (`$SKILLPORT_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/skillport`, else `~/.cache/skillport`), one per credential identity; a CLI run syncs once when
 * opened, and an unreachable remote with a copy from an earlier run is served from that copy with a warning on stderr.
 * Refused credentials are an error, never a warning (decision 0240).
 */
export async function openRemoteSource(address: string, options: OpenSourceOptions): Promise<OpenedSource> {
  if (options.write)
    throw new CliError(`${readOnlyLabel(address)} is read-only; copy into a folder or a database instead`);
  // The git source is loaded with the CLI's install commands; the others only when an address needs them.
  if (/^npm:/i.test(address)) {
    const { NpmSkillSource } = await import("@skillport/remote");
    const source = new NpmSkillSource({ package: address.slice("npm:".length), from: options.cwd });
    const skipped = () => source.skipped().map((s) => ({ folder: s.where, code: s.code, message: s.message }));
    return { label: source.name, provider: source, skipped, close: async () => undefined };
  }
  const web = /^https?:\/\//i.test(address);
  const onFetch = options.onFetch !== undefined ? { onFetch: options.onFetch } : {};
  const source: SnapshotSource = web
    ? new (await import("@skillport/remote")).HttpSkillSource({ url: address, ...onFetch })
    : GitSkillSource.fromAddress(address, { cwd: options.cwd, ...onFetch });
  let result;
  try {
    result = await source.sync();
  } catch (error) {
    // `https://host/repo.git` reads a well-known index; a git repository needs the git+ prefix.
    if (web && /\.git\/?$/i.test(new URL(address).pathname) && error instanceof Error) {
      error.message += ` (for a git repository, write git+${redactUri(address)})`;
    }
    throw error;
  }
  if (result.offline)
    options.warn?.(
      `${source.name} could not be reached; serving the copy from an earlier run (${result.error ?? "unknown error"})`,
    );
  // Remote leftovers (a file over the limit) and folders of the copy that are not skills, as notes.
  const skipped = () =>
    source.status().skipped.map((s) => ({ folder: s.where, code: "remote-skipped", message: s.reason }));
  return { label: source.name.replace(/\s/g, "_"), provider: source, skipped, close: async () => undefined };
}

function readOnlyLabel(address: string): string {
  return /^npm:/i.test(address) ? address : "a remote source";
}
