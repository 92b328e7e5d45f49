import { z } from "zod";

/** JSON Schema (2020-12) as a plain object. */
export type JsonSchema = { [key: string]: unknown };

/** One piece of a tool result. `json` is sent to models as its JSON text; images as base64 where the API allows. */
export type ToolContent =
  { type: "text"; text: string } | { type: "json"; value: unknown } | { type: "image"; mimeType: string; data: string };

export interface ToolResult {
  content: ToolContent[];
  isError: boolean;
  /** For the host, never sent to a model (e.g. which sandbox ran a command and its warnings). */
  details?: Record<string, unknown>;
}

/** What a tool is told about the call it serves. */
export interface ToolContext {
  /** The session whose skills are active for this call. */
  sessionId: string;
  signal?: AbortSignal;
}

/** A framework-neutral tool: what every adapter turns into its API's shape. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema 2020-12 of the arguments object. */
  readonly inputSchema: JsonSchema;
  /** Validates `args` first; a bad argument is an error result naming the field, never a throw. */
  execute(args: unknown, context: ToolContext): Promise<ToolResult>;
}

export interface DefineToolOptions<S extends z.ZodType> {
  name: string;
  description: string;
  input: S;
  /** Replaces the schema derived from `input` (e.g. to add an enum computed per request). Called on every read. */
  schema?: (base: JsonSchema) => JsonSchema;
  handler: (args: z.output<S>, context: ToolContext) => Promise<ToolResult | string> | ToolResult | string;
}

/** Model-facing tool names: what OpenAI, Anthropic and MCP all accept. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** A tool whose arguments are checked by a zod v4 schema before the handler runs; its JSON Schema is `z.toJSONSchema`. */
export function defineTool<S extends z.ZodType>(options: DefineToolOptions<S>): Tool {
  if (!TOOL_NAME_PATTERN.test(options.name))
    throw new TypeError(`tool name ${JSON.stringify(options.name)} must match ${TOOL_NAME_PATTERN}`);
  const base = jsonSchemaOf(options.input);
  const { name, description, input, handler } = options;
  const custom = options.schema;
  return {
    name,
    description,
    get inputSchema() {
      return custom ? custom(structuredClone(base)) : base;
    },
    async execute(args, context) {
      const parsed = input.safeParse(args ?? {});
      if (!parsed.success) return errorResult(describeIssues(name, parsed.error.issues));
      try {
        const out = await handler(parsed.data, context);
        return typeof out === "string" ? textResult(out) : out;
      } catch (error) {
        return errorResult(`Error: ${name} failed: ${messageOf(error)}`);
      }
    },
  };
}

/** The JSON Schema of a zod schema as models receive it: input shape, no noise bounds. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return stripSafeIntegerBounds(json) as JsonSchema;
}

function stripSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSafeIntegerBounds);
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: unknown } = {};
  for (const [key, v] of Object.entries(value)) {
    if ((key === "maximum" && v === Number.MAX_SAFE_INTEGER) || (key === "minimum" && v === Number.MIN_SAFE_INTEGER))
      continue;
    out[key] = stripSafeIntegerBounds(v);
  }
  return out;
}

/** "invalid argument 'path': expected string, received number" for each issue, naming the field. */
export function describeIssues(tool: string, issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.map((issue) => {
    const field = issue.path.length === 0 ? "(arguments)" : issue.path.map(String).join(".");
    const message = issue.message.replace(/^Invalid input: /, "");
    return issue.code === "invalid_type" && issue.message.includes("received undefined")
      ? `missing required argument '${field}'`
      : `invalid argument '${field}': ${message}`;
  });
  return `Error: ${tool}: ${lines.join("; ")}`;
}

export function textResult(text: string, details?: Record<string, unknown>): ToolResult {
  return details
    ? { content: [{ type: "text", text }], isError: false, details }
    : { content: [{ type: "text", text }], isError: false };
}

export function errorResult(text: string, details?: Record<string, unknown>): ToolResult {
  return details
    ? { content: [{ type: "text", text }], isError: true, details }
    : { content: [{ type: "text", text }], isError: true };
}

/**
 * `result` with its text and JSON parts holding at most `max` characters together: what passes the cap is cut, a
 * part past it is dropped (an image too), and a last text part says so. Unchanged when it fits.
 */
export function capResult(result: ToolResult, max: number): ToolResult {
  let left = max;
  let total = 0;
  let cut = false;
  const content: ToolContent[] = [];
  for (const part of result.content) {
    const text =
      part.type === "text" ? part.text : part.type === "json" ? (JSON.stringify(part.value) ?? "null") : undefined;
    const size = text?.length ?? (part.type === "image" ? part.data.length : 0);
    total += size;
    if (!cut && size <= left) {
      content.push(part);
      left -= size;
      continue;
    }
    if (!cut && text !== undefined && left > 0) content.push({ type: "text", text: text.slice(0, left) });
    cut = true;
    left = 0;
  }
  if (!cut) return result;
  content.push({
    type: "text",
    text: `\n[truncated: the result held ${total} characters; only the first ${max} are shown]`,
  });
  return { ...result, content };
}

/** A result's text: text parts as they are, JSON as its text, images as a short placeholder. */
export function resultText(result: ToolResult): string {
  return result.content
    .map((part) =>
      part.type === "text"
        ? part.text
        : part.type === "json"
          ? JSON.stringify(part.value)
          : `[image ${part.mimeType}, ${Math.floor((part.data.length * 3) / 4)} bytes]`,
    )
    .join("\n");
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
