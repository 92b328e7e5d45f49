import { writeFileAtomic } from "@skillport/fs";

/** Writes JSON so readers see the old file or the whole new one (temp file + rename). For the host's own folders. */
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(value, null, 2) + "\n", { mode: 0o600 });
}
