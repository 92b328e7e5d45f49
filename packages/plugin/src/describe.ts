import { z } from "zod";
import type { JsonSchema } from "./built-manifest.js";
import type { ObjectSchema, PluginDefinition } from "./define.js";

/** A serialisable view of a plugin definition: what `plugin build` reads out of a bundle. */
export interface PluginDescription {
  kind: "tool" | "toolSet";
  /** The author's manifest as written (validated later, so every issue can be reported with its path). */
  manifest: unknown;
  secretSchema?: JsonSchema;
  children: ChildDescription[];
  /** Schemas that could not be converted, as `children[0].inputSchema: reason`. */
  problems: string[];
}

export interface ChildDescription {
  id: unknown;
  name: unknown;
  description: unknown;
  icon?: unknown;
  toolDescription?: unknown;
  inputSchema?: JsonSchema;
  outputSchema?: JsonSchema;
  /** A child handler's own secret schema (a tool set uses only its top-level one). */
  secretSchema?: JsonSchema;
}

/** JSON Schema of a zod schema, keeping `.meta()` keys; inputs describe what callers may send. */
export function toJsonSchema(schema: ObjectSchema, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "throw" }) as JsonSchema;
}

export function describePlugin(definition: PluginDefinition): PluginDescription {
  const problems: string[] = [];
  const convert = (where: string, schema: unknown, io: "input" | "output"): JsonSchema | undefined => {
    if (schema === undefined) return undefined;
    if (!(schema instanceof z.ZodObject)) {
      problems.push(`${where}: must be a z.object(...) schema`);
      return undefined;
    }
    try {
      return toJsonSchema(schema, io);
    } catch (error) {
      problems.push(
        `${where}: cannot be expressed as JSON Schema (${error instanceof Error ? error.message : String(error)})`,
      );
      return undefined;
    }
  };
  const secretSchema = convert("secretSchema", definition.secretSchema, "input");
  const children = definition.children.map((entry, index): ChildDescription => {
    const at = `children[${index}]`;
    const isObject = typeof entry === "object" && entry !== null;
    if (!isObject) problems.push(`${at}: must be an object {id, name, description, handler}`);
    const child: Partial<Record<string, unknown>> = isObject ? { ...entry } : {};
    // Bundles are untrusted JavaScript: read the handler as unknown data, not as the type it claims to be.
    const raw = child.handler;
    const handler: Partial<Record<string, unknown>> = typeof raw === "object" && raw !== null ? { ...raw } : {};
    if (typeof handler.handler !== "function")
      problems.push(`${at}.handler: must be a createToolHandler(...) result with a handler function`);
    if (handler.inputSchema === undefined) problems.push(`${at}.handler.inputSchema: is required`);
    if (handler.outputSchema === undefined) problems.push(`${at}.handler.outputSchema: is required`);
    const inputSchema = convert(`${at}.handler.inputSchema`, handler.inputSchema, "input");
    const outputSchema = convert(`${at}.handler.outputSchema`, handler.outputSchema, "output");
    const childSecrets = convert(`${at}.handler.secretSchema`, handler.secretSchema, "input");
    return {
      id: child.id,
      name: child.name,
      description: child.description,
      ...(child.icon === undefined ? {} : { icon: child.icon }),
      ...(child.toolDescription === undefined ? {} : { toolDescription: child.toolDescription }),
      ...(inputSchema === undefined ? {} : { inputSchema }),
      ...(outputSchema === undefined ? {} : { outputSchema }),
      ...(childSecrets === undefined ? {} : { secretSchema: childSecrets }),
    };
  });
  return {
    kind: definition.kind,
    manifest: definition.manifest,
    ...(secretSchema === undefined ? {} : { secretSchema }),
    children,
    problems,
  };
}
