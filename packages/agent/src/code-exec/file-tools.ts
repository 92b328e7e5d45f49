import { readdirSync, realpathSync, type Dirent } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { InvalidPathError, ResourceNotFoundError } from "@skillport/core";
import { isInside, isMissing, openConfined, resolveConfined } from "@skillport/fs";
import { defineTool, errorResult, messageOf, type Tool, type ToolResult } from "../tool.js";
import type { CodeExecutionHost } from "./tool-host.js";
import type { WorkSpace } from "./work-space.js";

const ranges = z
  .union([z.string(), z.array(z.number().int()).length(2)])
  .optional()
  .describe(
    "Lines to act on, inclusive and 1-based, as 'start,end' or [start, end]; negative numbers count from the end (view only)",
  );

/**
 * `view_text_file`, `list_directory`, `write_text_file`, `insert_text_file`: confined to the session's work dir by real
 * path; writes go through descriptors and wait for the work dir's running commands (decision 0230).
 */
export function createFileTools(exec: CodeExecutionHost): { view: Tool; list: Tool; write: Tool; insert: Tool } {
  const max = () => exec.settings.maxFileBytes;

  const view = defineTool({
    name: "view_text_file",
    description:
      "View the file content in the specified range with line numbers. If ranges is not provided, the entire file is returned. Negative numbers count from the end ('-100,-1' is the last 100 lines).",
    input: z.object({ file_path: z.string().describe("The target file path"), ranges }),
    handler: async ({ file_path, ranges: wanted }, context) => {
      const space = exec.space(context.sessionId);
      const rel = relativePath(space, file_path);
      if (typeof rel !== "string") return rel;
      let bytes: Uint8Array | undefined;
      try {
        const file = openConfined(space.workDir, rel, { followLinksInside: true });
        try {
          bytes = file.readAllSync(max());
        } finally {
          file.close();
        }
      } catch (error) {
        return fileError(file_path, error);
      }
      if (bytes === undefined) return errorResult(`Error: ${file_path} is larger than ${max()} bytes.`);
      const text = decodeText(bytes);
      if (text === undefined) return errorResult(`Error: ${file_path} is not a text file.`);
      const lines = splitLines(text);
      if (wanted === undefined || (typeof wanted === "string" && wanted.trim() === "")) {
        return `The content of ${file_path}:\n\`\`\`\n${numbered(lines, 1, lines.length)}\`\`\``;
      }
      const range = parseRange(wanted);
      if (!range)
        return errorResult(`Error: invalid ranges ${JSON.stringify(wanted)}; expected 'start,end' or [start, end].`);
      let [start, end] = range;
      if (start < 0) start = lines.length + start + 1;
      if (end < 0) end = lines.length + end + 1;
      start = Math.max(1, start);
      end = Math.min(lines.length, end);
      if (start > end)
        return errorResult(
          `Error: invalid range: start line ${start} is after end line ${end} (the file has ${lines.length} lines).`,
        );
      return `The content of ${file_path} in lines [${start}, ${end}]:\n\`\`\`\n${numbered(lines, start, end)}\`\`\``;
    },
  });

  const list = defineTool({
    name: "list_directory",
    description:
      "List the files and folders in a directory of the work directory (default: the work directory itself), with their full paths.",
    input: z.object({
      dir_path: z.string().optional().describe("The target directory path to list files and folders"),
    }),
    handler: async ({ dir_path }, context) => {
      const space = exec.space(context.sessionId);
      const shown = dir_path ?? ".";
      const rel = relativePath(space, shown, true);
      if (typeof rel !== "string") return rel;
      let real: string;
      try {
        real = rel === "" ? space.workDir : await resolveConfined(space.workDir, rel);
      } catch (error) {
        return fileError(shown, error);
      }
      let entries;
      try {
        entries = readdirSync(real, { withFileTypes: true });
        // The directory must still be where it was checked (not swapped for a link meanwhile).
        if (realpathSync(real) !== real) throw new InvalidPathError(rel, "changed while it was listed");
      } catch (error) {
        if (error instanceof InvalidPathError) return fileError(shown, error);
        return errorResult(`Error: ${shown} is not a directory that can be listed (${messageOf(error)}).`);
      }
      return listing(shown, real, entries, exec.settings.maxListedEntries);
    },
  });

  const write = defineTool({
    name: "write_text_file",
    description:
      "Create or overwrite a text file in the work directory. With ranges, only those lines are replaced by the content.",
    input: z.object({
      file_path: z.string().describe("The target file path"),
      content: z.string().describe("The content to be written"),
      ranges,
    }),
    handler: async ({ file_path, content, ranges: wanted }, context) => {
      if (Buffer.byteLength(content) > max()) return errorResult(`Error: the content is larger than ${max()} bytes.`);
      const space = exec.space(context.sessionId);
      return editUnderLock(space, file_path, max(), (target, existing) => {
        if (existing === undefined || wanted === undefined || (typeof wanted === "string" && wanted.trim() === "")) {
          const failed = writeInside(space, target, file_path, content);
          if (failed) return failed;
          const ignored =
            existing === undefined && wanted !== undefined
              ? ` The ranges ${JSON.stringify(wanted)} were ignored: the file did not exist.`
              : "";
          return `${existing === undefined ? "Created and wrote" : "Wrote"} ${file_path} successfully.${ignored}`;
        }
        const range = parseRange(wanted);
        if (!range || range[0] < 1 || range[1] < range[0])
          return errorResult(
            `Error: invalid ranges ${JSON.stringify(wanted)}; expected 'start,end' with 1 <= start <= end.`,
          );
        const lines = splitLines(existing);
        if (range[0] > lines.length + 1)
          return errorResult(`Error: start line ${range[0]} is past the end of ${file_path} (${lines.length} lines).`);
        const next = lines.slice(0, range[0] - 1).concat(splitLines(content), lines.slice(range[1]));
        return (
          writeInside(space, target, file_path, joinLines(next, existing.endsWith("\n"))) ??
          `Wrote ${file_path} successfully: lines ${range[0]}-${range[1]} replaced.`
        );
      });
    },
  });

  const insert = defineTool({
    name: "insert_text_file",
    description: "Insert the content at the given line number of an existing text file, pushing later lines down.",
    input: z.object({
      file_path: z.string().describe("The target file path"),
      content: z.string().describe("The content to be inserted"),
      line_number: z
        .number()
        .int()
        .describe("The line number at which the content is inserted, starting from 1; one past the last line appends"),
    }),
    handler: async ({ file_path, content, line_number }, context) => {
      if (line_number < 1)
        return errorResult(
          `Error: invalid argument 'line_number': ${line_number} is not a line number (they start at 1).`,
        );
      const space = exec.space(context.sessionId);
      return editUnderLock(space, file_path, max(), (target, existing) => {
        if (existing === undefined) return errorResult(`Error: the file ${file_path} does not exist.`);
        const lines = splitLines(existing);
        if (line_number > lines.length + 1)
          return errorResult(`Error: line_number ${line_number} is not in the valid range [1, ${lines.length + 1}].`);
        const next = lines.slice(0, line_number - 1).concat(splitLines(content), lines.slice(line_number - 1));
        const text = joinLines(next, existing.endsWith("\n") || lines.length === 0);
        if (Buffer.byteLength(text) > max())
          return errorResult(`Error: the result would be larger than ${max()} bytes.`);
        return (
          writeInside(space, target, file_path, text) ??
          `Inserted into ${file_path} at line ${line_number} successfully.`
        );
      });
    },
  });

  return { view, list, write, insert };
}

/**
 * Runs an edit under the work dir's write lock (no sandboxed command of it runs meanwhile; decision 0230) with the
 * writable target and the file's current text (undefined when it does not exist yet), or answers their error.
 */
function editUnderLock(
  space: WorkSpace,
  given: string,
  maxBytes: number,
  edit: (target: string, existing: string | undefined) => ToolResult | string,
): Promise<ToolResult | string> {
  return space.lock.write(async () => {
    const target = await writableTarget(space, given);
    if (typeof target !== "string") return target;
    const existing = readExisting(space, given, maxBytes);
    if (typeof existing === "object") return existing;
    return edit(target, existing);
  });
}

/**
 * The path relative to the work dir, or an error result. Absolute paths must be inside the work dir; `..` is
 * resolved as text, and a result outside is refused. Real-path confinement comes after, on the opened file.
 */
function relativePath(space: WorkSpace, given: string, allowRoot = false): string | ToolResult {
  if (given.trim() === "" && !allowRoot)
    return errorResult("Error: missing required argument 'file_path' (it must not be blank)");
  if (given.includes("\0")) return errorResult(`Error: path ${JSON.stringify(given)} contains NUL.`);
  const root = space.workDir;
  const full = path.resolve(root, given.trim() === "" ? "." : given);
  const rel = path.relative(root, full);
  if (rel === "" && allowRoot) return "";
  if (rel === "" || !isInside(root, full)) {
    return errorResult(`Error: ${given} is outside the work directory ${root}.`);
  }
  return rel.split(path.sep).join("/");
}

/** Where a write lands (real path inside the work dir; missing parents may not be dangling links), or an error. */
async function writableTarget(space: WorkSpace, given: string): Promise<string | ToolResult> {
  const rel = relativePath(space, given);
  if (typeof rel !== "string") return rel;
  try {
    const target = await resolveConfined(space.workDir, rel, { allowMissing: true });
    if (!isInside(space.workDir, target) || target === space.workDir)
      return errorResult(`Error: ${given} is outside the work directory.`);
    return target;
  } catch (error) {
    return fileError(given, error);
  }
}

/** The current text of a file (undefined when missing), read through the confined open; an error result otherwise. */
function readExisting(space: WorkSpace, given: string, maxBytes: number): string | undefined | ToolResult {
  const rel = relativePath(space, given);
  if (typeof rel !== "string") return rel;
  try {
    const file = openConfined(space.workDir, rel, { followLinksInside: true });
    try {
      const bytes = file.readAllSync(maxBytes);
      if (bytes === undefined) return errorResult(`Error: ${given} is larger than ${maxBytes} bytes.`);
      const text = decodeText(bytes);
      return text === undefined ? errorResult(`Error: ${given} is not a text file.`) : text;
    } finally {
      file.close();
    }
  } catch (error) {
    if (error instanceof ResourceNotFoundError && !/not a regular file/.test(error.message)) return undefined;
    if (isMissing(error)) return undefined;
    return fileError(given, error);
  }
}

/** Writes `data` at `target` (a real path inside the work dir) through the work space; an error result, or undefined. */
function writeInside(space: WorkSpace, target: string, given: string, data: string): ToolResult | undefined {
  try {
    space.write(path.relative(space.workDir, target).split(path.sep).join("/"), data);
    return undefined;
  } catch (error) {
    return fileError(given, error);
  }
}

/** list_directory's text: folders then files, sorted, at most `max` named (the rest counted); no spread of the entries. */
function listing(shown: string, real: string, entries: Dirent[], max: number): string {
  const dirs: string[] = [];
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = path.join(real, entry.name);
    if (entry.isDirectory()) dirs.push(full);
    else files.push(entry.isSymbolicLink() ? `${full} (link)` : full);
  }
  let left = max;
  let out = `Contents of directory ${shown}:\n\n`;
  for (const [title, names] of [
    ["Directories:", dirs],
    ["Files:", files],
  ] as const) {
    if (names.length === 0) continue;
    out += `${title}\n`;
    const shownNames = names.slice(0, Math.max(left, 0));
    for (const name of shownNames) out += `  ${name}\n`;
    if (shownNames.length < names.length)
      out += `  [truncated: ${names.length - shownNames.length} more not listed (limit ${max} entries)]\n`;
    left -= shownNames.length;
    out += "\n";
  }
  return (
    out +
    (dirs.length + files.length === 0
      ? "(empty directory)"
      : `Total: ${dirs.length} directories, ${files.length} files`)
  );
}

function fileError(given: string, error: unknown): ToolResult {
  if (error instanceof InvalidPathError) return errorResult(`Error: ${given} cannot be used: ${error.reason}.`);
  if (error instanceof ResourceNotFoundError) {
    return errorResult(
      /not a regular file/.test(error.message)
        ? `Error: ${given} is not a regular file.`
        : `Error: ${given} does not exist.`,
    );
  }
  return errorResult(`Error: ${given}: ${messageOf(error)}`);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
function decodeText(bytes: Uint8Array): string | undefined {
  try {
    const text = utf8.decode(bytes);
    return text.includes("\u0000") ? undefined : text;
  } catch {
    return undefined;
  }
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

function joinLines(lines: readonly string[], trailingNewline: boolean): string {
  return lines.join("\n") + (trailingNewline && lines.length > 0 ? "\n" : "");
}

function numbered(lines: readonly string[], start: number, end: number): string {
  let out = "";
  for (let i = start; i <= end; i++) out += `${i}: ${lines[i - 1] ?? ""}\n`;
  return out;
}

function parseRange(value: string | number[]): [number, number] | undefined {
  if (Array.isArray(value)) return value.length === 2 ? [value[0] as number, value[1] as number] : undefined;
  const match = /^\s*\[?\s*(-?\d+)\s*,\s*(-?\d+)\s*\]?\s*$/.exec(value);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}
