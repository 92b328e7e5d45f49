/**
 * Reads a plugin module's default export (a defineTool / defineToolSet result) into one shape the worker runs.
 * Duck-typed on purpose: the worker never imports the SDK itself, so a plugin built against any SDK copy works.
 */

/** The subset of a zod schema the worker needs: a non-throwing parse. */
interface ParseSchema {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: SchemaIssue[] } };
}

export interface SchemaIssue {
  code?: string;
  path: PropertyKey[];
  message: string;
}

type ToolHandlerFn = (input: unknown, ctx: unknown) => unknown;

interface RunnableTool {
  id: string;
  inputSchema: ParseSchema;
  outputSchema: ParseSchema;
  secretSchema: ParseSchema | undefined;
  handler: ToolHandlerFn;
}

export interface RunnablePlugin {
  pluginId: string;
  tools: Map<string, RunnableTool>;
}

/** The child id of a single-tool plugin (FastGPT's default). */
const SINGLE_TOOL_ID = "tool";

export function readDefinition(moduleNamespace: unknown): RunnablePlugin {
  const def = field(moduleNamespace, "default");
  if (!isObject(def))
    throw new Error("the plugin's index.js has no default export (expected defineTool() or defineToolSet())");
  if (field(def, "children") === undefined && isToolFactory(def)) return readToolFactory(def);
  const manifest = field(def, "manifest");
  const pluginId = field(manifest, "pluginId");
  if (typeof pluginId !== "string")
    throw new Error("the default export has no manifest.pluginId (expected defineTool() or defineToolSet())");

  const tools = new Map<string, RunnableTool>();
  const children = field(def, "children");
  if (Array.isArray(children)) {
    const sharedSecrets = optionalSchema(field(def, "secretSchema"), "secretSchema");
    for (const [index, child] of children.entries()) {
      const id = field(child, "id");
      if (typeof id !== "string" || id === "") throw new Error(`children[${index}] has no id`);
      // Upstream semantics: a tool set's own secretSchema applies to every child.
      tools.set(id, runnable(id, field(child, "handler"), `children[${index}].handler`, sharedSecrets));
    }
  } else {
    tools.set(SINGLE_TOOL_ID, runnable(SINGLE_TOOL_ID, field(def, "handler"), "handler", undefined));
  }
  return { pluginId, tools };
}

/** FastGPT's `ToolFactory` (a package built with the real SDK inlined): read through its public methods. */
interface ToolFactoryLike {
  getUserToolManifest(): unknown;
  getToolHandler(childId?: string): unknown;
  getChildManifests(): unknown;
  getSecretSchema(): unknown;
}

function isToolFactory(value: object): value is ToolFactoryLike {
  return ["getUserToolManifest", "getToolHandler", "getChildManifests", "getSecretSchema"].every(
    (name) => typeof field(value, name) === "function",
  );
}

function readToolFactory(factory: ToolFactoryLike): RunnablePlugin {
  const pluginId = field(factory.getUserToolManifest(), "pluginId");
  if (typeof pluginId !== "string") throw new Error("the default export's getUserToolManifest() has no pluginId");
  const secrets = optionalSchema(factory.getSecretSchema(), "getSecretSchema()");
  const tools = new Map<string, RunnableTool>();
  const children = factory.getChildManifests();
  const ids =
    Array.isArray(children) && children.length > 0 ? children.map((child) => field(child, "id")) : [SINGLE_TOOL_ID];
  for (const [index, id] of ids.entries()) {
    if (typeof id !== "string" || id === "") throw new Error(`getChildManifests()[${index}] has no id`);
    tools.set(id, runnable(id, factory.getToolHandler(id), `getToolHandler(${JSON.stringify(id)})`, secrets));
  }
  return { pluginId, tools };
}

function runnable(id: string, h: unknown, where: string, sharedSecrets: ParseSchema | undefined): RunnableTool {
  const handler = field(h, "handler");
  if (typeof handler !== "function")
    throw new Error(`${where} is not a createToolHandler() result (no handler function)`);
  return {
    id,
    inputSchema: requiredSchema(field(h, "inputSchema"), `${where}.inputSchema`),
    outputSchema: requiredSchema(field(h, "outputSchema"), `${where}.outputSchema`),
    secretSchema: sharedSecrets ?? optionalSchema(field(h, "secretSchema"), `${where}.secretSchema`),
    handler: handler as ToolHandlerFn,
  };
}

function requiredSchema(value: unknown, where: string): ParseSchema {
  if (!isSchema(value)) throw new Error(`${where} is not a zod schema`);
  return value;
}

function optionalSchema(value: unknown, where: string): ParseSchema | undefined {
  if (value === undefined || value === null) return undefined;
  return requiredSchema(value, where);
}

function isSchema(value: unknown): value is ParseSchema {
  return isObject(value) && typeof field(value, "safeParse") === "function";
}

function isObject(value: unknown): value is object {
  return (typeof value === "object" || typeof value === "function") && value !== null;
}

function field(value: unknown, key: string): unknown {
  return isObject(value) ? (value as Record<string, unknown>)[key] : undefined;
}
