import { existsSync, statSync } from "node:fs";
import { mkdtemp, rename, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { AgentSkillsError } from "@skillport/core/errors";
import { redactUri } from "@skillport/core/internal";
import { CliError, EXIT_PROBLEMS, warnOn, type CliOutput } from "./io.js";
import type { OpenedSource } from "./sources/opened-source.js";
import { openSource, rootScheme } from "./source-uri.js";

/** A `.skill` file or a zipped/tarred skill folder (`add` takes a path or an http(s) URL to one). */
export const SKILL_ARCHIVE = /\.(?:skill|zip|tar|tgz|tar\.gz)$/i;

/** Longest wait for an archive download (headers and body). */
const DOWNLOAD_TIMEOUT_MS = 120_000;

/**
 * Opens what `add`/`install` read skills from. A `.skill`/`.zip`/`.tar(.gz)` file or URL is unpacked by the pack
 * package's hardened reader (size, count, depth, ratio limits; no links, no path escapes) into a private temp folder,
 * named after the archive's one top folder (else the file's name), and opened as one skill folder; closing removes it.
 * Every other address goes to the CLI's one `openSource`.
 */
export async function openInstallSource(address: string, io: CliOutput): Promise<OpenedSource> {
  const scheme = rootScheme(address);
  const local = path.resolve(io.cwd, address);
  const isFile = scheme === undefined && existsSync(local) && statSync(local).isFile();
  const isUrl = (scheme === "https" || scheme === "http") && SKILL_ARCHIVE.test(new URL(address).pathname);
  if (!(isFile && SKILL_ARCHIVE.test(local)) && !isUrl) return openSource(address, { cwd: io.cwd, warn: warnOn(io) });
  const { DEFAULT_PACKAGE_LIMITS, unpackArchive } = await import("@skillport/pack");
  const shown = isUrl ? redactUri(address) : address;
  const input = isUrl ? await download(address, shown, DEFAULT_PACKAGE_LIMITS.maxArchiveBytes) : local;
  const temp = await mkdtemp(path.join(os.tmpdir(), "skillport-add-"));
  try {
    const stage = path.join(temp, "stage");
    const unpacked = await unpackArchive(input, stage, { stripWrapper: false }).catch((error: unknown) => {
      // The reader refuses what it will not write (a path that climbs, a link, a bomb): one line naming the archive.
      if (error instanceof AgentSkillsError) throw new CliError(`${shown}: ${error.message}`, EXIT_PROBLEMS);
      throw error;
    });
    // SKILL.md at the root (the folder is named after the file), or one top folder holding it (`export`'s layout).
    const paths = unpacked.files.map((f) => f.path);
    const tops = new Set(paths.map((p) => p.split("/")[0] ?? ""));
    const [top = ""] = tops;
    let dir: string;
    if (paths.includes("SKILL.md")) {
      const fileName = (isUrl ? new URL(address).pathname : local).split("/").pop() ?? "";
      dir = path.join(temp, fileName.replace(SKILL_ARCHIVE, ""));
      if (path.dirname(dir) !== temp || dir === stage) throw new CliError(`${shown}: the file name does not give a skill folder name`, EXIT_PROBLEMS);
      await rename(stage, dir);
    } else if (tops.size === 1 && paths.includes(`${top}/SKILL.md`)) {
      dir = path.join(stage, top);
    } else {
      throw new CliError(`${shown}: the archive holds no SKILL.md at its root or in its one top folder`, EXIT_PROBLEMS);
    }
    const opened = await openSource(dir, { cwd: io.cwd, warn: warnOn(io) });
    return { ...opened, label: shown, close: () => opened.close().finally(() => rm(temp, { recursive: true, force: true })) };
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

/** The archive's bytes, at most `max`; a larger answer (announced or streamed) is refused before it is all read. */
async function download(url: string, shown: string, max: number): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  } catch (error) {
    throw new CliError(`${shown}: download failed (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!response.ok) throw new CliError(`${shown}: the server answered ${response.status}`);
  const announced = Number(response.headers.get("content-length") ?? "0");
  if (announced > max) throw new CliError(`${shown}: ${announced} bytes, over the ${max}-byte archive limit`, EXIT_PROBLEMS);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += (chunk as Uint8Array).byteLength;
    if (total > max) throw new CliError(`${shown}: over the ${max}-byte archive limit`, EXIT_PROBLEMS);
    chunks.push(chunk as Uint8Array);
  }
  return Buffer.concat(chunks);
}
