import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "@skillport/fs";

/** Reads a JSON object; anything missing or malformed reads as `{}` (the files this is used for are caches). */
export async function readJsonRecord(file: string): Promise<Record<string, unknown>> {
  try {
    const value: unknown = JSON.parse(await readFile(file, "utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Writes JSON so readers see the old file or the whole new one (temp file + rename). For the host's own folders. */
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(value, null, 2) + "\n", { mode: 0o600 });
}
