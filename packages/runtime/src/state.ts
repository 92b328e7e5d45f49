import { readFile } from "node:fs/promises";
import path from "node:path";
import { InvalidPathError } from "@skillport/core";
import { writeJsonAtomic } from "./json-file.js";
import { openPinnedDir } from "@skillport/fs";

/**
 * FastGPT's runtime state file (`~/.fastgpt/runtime/state.json`):
 * `{ "values": { "sandboxEntrypoint": "sha256:<hex>", "skillEntrypoints": ["<versionId>", …] } }`.
 * Other keys in `values` (e.g. `builtinSkill:<name>`) are kept as they are.
 */
export type StateValue = string | string[];
export interface RuntimeState {
  values: Record<string, StateValue>;
}

export const SKILL_ENTRYPOINTS_KEY = "skillEntrypoints";
export const SANDBOX_ENTRYPOINT_KEY = "sandboxEntrypoint";
/** Relative to the home directory, as upstream. */
export const DEFAULT_STATE_PATH = path.join(".fastgpt", "runtime", "state.json");

export interface ReadStateResult {
  state: RuntimeState;
  /** Why the file was read as empty, when it existed but was unusable. */
  problem: string | undefined;
}

/** Reads the state; a missing, empty or corrupt file reads as empty (and says why when it was corrupt). */
export async function readState(file: string): Promise<ReadStateResult> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: { values: {} }, problem: undefined };
    return { state: { values: {} }, problem: `state file unreadable: ${(error as NodeJS.ErrnoException).code ?? "error"}` };
  }
  if (text.trim() === "") return { state: { values: {} }, problem: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { state: { values: {} }, problem: "state file is not valid JSON; treating it as empty" };
  }
  if (!isRecord(parsed)) return { state: { values: {} }, problem: "state file is not a JSON object; treating it as empty" };
  const values: Record<string, StateValue> = {};
  // Upstream merges legacy `hashes` / `lists` keys into `values` on read; so do we.
  for (const source of [parsed.hashes, parsed.lists, parsed.values]) {
    if (!isRecord(source)) continue;
    for (const [key, value] of Object.entries(source)) {
      if (typeof value === "string") values[key] = value;
      else if (Array.isArray(value)) values[key] = value.filter((v): v is string => typeof v === "string");
    }
  }
  return { state: { values }, problem: undefined };
}

/**
 * Writes the state pretty-printed, atomically (temp file + rename); empty arrays and empty `values` are dropped.
 * With `confineTo` (a sandbox-writable folder holding the file), every folder on the way is opened without following
 * links and the file is replaced through the last one (decision 0142): a planted link is refused, never followed.
 */
export async function writeState(file: string, state: RuntimeState, confineTo?: string): Promise<void> {
  if (confineTo === undefined) return writeJsonAtomic(file, stateBody(state));
  const rel = path.relative(confineTo, file);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) throw new InvalidPathError(path.basename(file), "the state file is not inside the folder it is confined to");
  const dir = openPinnedDir(confineTo, path.dirname(rel).split(path.sep).join("/"), { create: true });
  try {
    dir.replaceFile(path.basename(rel), stateText(state), 0o644);
  } finally {
    dir.close();
  }
}

/** The file's text, as writeState writes it. */
function stateText(state: RuntimeState): string {
  return JSON.stringify(stateBody(state), null, 2) + "\n";
}

function stateBody(state: RuntimeState): object {
  const values: Record<string, StateValue> = {};
  for (const [key, value] of Object.entries(state.values)) {
    if (Array.isArray(value) ? value.length > 0 : value !== "") values[key] = value;
  }
  return Object.keys(values).length > 0 ? { values } : {};
}

export function listValue(state: RuntimeState, key: string): string[] {
  const value = state.values[key];
  return Array.isArray(value) ? [...value] : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
