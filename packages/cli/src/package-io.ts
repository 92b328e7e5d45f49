import { stat } from "node:fs/promises";
import type { Diagnostic } from "@skillport/core";
import { describeFsError } from "./fs-errors.js";
import { CliError, type CliIO } from "./io.js";
import { diagnosticLine } from "./report.js";

// Helpers shared by the package commands (pack, inspect, unpack, export, import), kept apart from any one command
// so that `unpack` does not load the packer through `pack`'s module (decision 0202).

/** Each finding on its line, in the CLI's one diagnostic format (report.ts `diagnosticLine`). */
export function formatDiagnostics(diagnostics: readonly Diagnostic[], io: CliIO): string {
  return diagnostics.map((d) => `${diagnosticLine(d, "", io)}\n`).join("");
}

export function size(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

export async function requireDirectory(absolute: string, shown: string): Promise<void> {
  const info = await stat(absolute).catch(() => undefined);
  if (!info) throw new CliError(`${shown}: no such directory`);
  if (!info.isDirectory()) throw new CliError(`${shown}: not a directory`);
}

export async function requireFile(absolute: string, shown: string): Promise<void> {
  const info = await stat(absolute).catch(() => undefined);
  if (!info) throw new CliError(`${shown}: no such file`);
  if (!info.isFile()) throw new CliError(`${shown}: not a file`);
}

/** Node's own fs errors carry absolute host paths and errno names; users get one line in words (fs-errors.ts). */
export async function withFsErrors<T>(run: () => Promise<T>, cwd: string): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const line = error instanceof CliError ? undefined : describeFsError(error, cwd);
    if (line !== undefined) throw new CliError(line);
    throw error;
  }
}

/** A path given for something the command creates as a folder (--into, --workspace): absent, or a directory. */
export async function requireDirectoryOrAbsent(absolute: string, flag: string, shown: string): Promise<void> {
  const info = await stat(absolute).catch(() => undefined);
  if (info && !info.isDirectory())
    throw new CliError(`${flag} ${shown}: not a directory (give a folder, or a path where one can be created)`);
}

/** A path given for a file the command writes (--output): absent or a file, never a directory. */
export async function requireNotDirectory(
  absolute: string,
  flag: string,
  shown: string,
  example: string,
): Promise<void> {
  const info = await stat(absolute).catch(() => undefined);
  if (info?.isDirectory()) throw new CliError(`${flag} ${shown}: is a directory; give a file name, e.g. ${example}`);
}
