import { readFile } from "node:fs/promises";
import path from "node:path";
import { InvalidPathError } from "@skillport/core";
import { writeJsonAtomic } from "./json-file.js";
import { errorCode, isInside, isMissing, openPinnedDir, parseStateText } from "@skillport/fs";

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

/** The file's shape (zod v4 mini, loaded when state is read): FastGPT's `values`, and its legacy `hashes`/`lists`. */
async function stateSchema() {
  const z = await import("zod/mini");
  const values = z.optional(z.record(z.string(), z.union([z.string(), z.array(z.string())])));
  return z.looseObject({ hashes: values, lists: values, values });
}

type StateFile = Partial<Record<"hashes" | "lists" | "values", Record<string, StateValue>>>;

/**
 * Reads the state through its schema (decision 0322). A missing or empty file is empty state. An unreadable, truncated
 * or malformed one (not JSON, not an object, a value that is neither a string nor a list of strings) is empty state
 * with `problem` saying what is wrong; what that means is the caller's: `runEntrypoints` refuses to run on records it
 * cannot read.
 */
export async function readState(file: string): Promise<ReadStateResult> {
  const empty = (problem: string | undefined): ReadStateResult => ({ state: { values: {} }, problem });
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return empty(isMissing(error) ? undefined : `state file cannot be read (${errorCode(error) ?? String(error)})`);
  }
  if (text.trim() === "") return empty(undefined);
  const parsed = parseStateText<StateFile>(text, await stateSchema());
  if ("problem" in parsed) return empty(`state file is ${parsed.problem}`);
  // Upstream merges legacy `hashes` / `lists` keys into `values` on read; so do we.
  const { hashes, lists, values } = parsed.value;
  return { state: { values: { ...hashes, ...lists, ...values } }, problem: undefined };
}

/**
 * Writes the state pretty-printed, atomically (temp file + rename); empty arrays and empty `values` are dropped.
 * With `confineTo` (a sandbox-writable folder holding the file), every folder on the way is opened without following
 * links and the file is replaced through the last one (decision 0142): a planted link is refused, never followed.
 */
export async function writeState(file: string, state: RuntimeState, confineTo?: string): Promise<void> {
  if (confineTo === undefined) return writeJsonAtomic(file, stateBody(state));
  // Strictly below: the file's own folder is the confining one or inside it.
  if (!isInside(confineTo, path.dirname(path.resolve(file))))
    throw new InvalidPathError(path.basename(file), "the state file is not inside the folder it is confined to");
  const rel = path.relative(confineTo, file);
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
