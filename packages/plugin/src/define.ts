import type { z } from "zod";
import type { ToolHandlerContext } from "./context.js";
import type { I18nString, PluginManifest } from "./manifest.js";

/** Any `z.object(...)` schema (strict, loose or stripping). */
export type ObjectSchema = z.ZodObject<z.core.$ZodLooseShape, z.core.$ZodObjectConfig>;

/** The parsed secrets a handler sees: the secret schema's output, or undefined without one. */
export type SecretsOf<S> = S extends ObjectSchema ? z.output<S> : undefined;

type Awaitable<T> = T | Promise<T>;

/** One tool's schemas and code. `handler` is a method so handlers of any schema fit in one tool set. */
export interface ToolHandler<
  I extends ObjectSchema = ObjectSchema,
  O extends ObjectSchema = ObjectSchema,
  S extends ObjectSchema | undefined = ObjectSchema | undefined,
> {
  readonly inputSchema: I;
  readonly outputSchema: O;
  readonly secretSchema?: S;
  handler(input: z.output<I>, ctx: ToolHandlerContext<SecretsOf<S>>): Awaitable<z.input<O>>;
}

/** Identity helper: ties a handler's `input`, `ctx.secrets` and return type to its schemas. */
export function createToolHandler<
  I extends ObjectSchema,
  O extends ObjectSchema,
  S extends ObjectSchema | undefined = undefined,
>(definition: ToolHandler<I, O, S>): ToolHandler<I, O, S> {
  return definition;
}

/** Marks a value as a `defineTool`/`defineToolSet` result across module copies (a registry symbol). */
export const PLUGIN_DEFINITION: unique symbol = Symbol.for("skillport.plugin.definition");

/** The id a single tool's only child gets. */
export const SINGLE_TOOL_CHILD_ID = "tool";

export interface ToolChild {
  readonly id: string;
  readonly name: I18nString;
  readonly description: I18nString;
  readonly icon?: string;
  readonly toolDescription?: string;
  readonly handler: ToolHandler;
}

interface PluginDefinitionBase {
  readonly [PLUGIN_DEFINITION]: true;
  readonly manifest: PluginManifest;
  /** The secret schema the host parses `ctx.secrets` with (a tool set's top-level one). */
  readonly secretSchema: ObjectSchema | undefined;
  /** Every runnable tool; a single tool has one child with id `tool`. */
  readonly children: readonly ToolChild[];
}

export interface ToolDefinition extends PluginDefinitionBase {
  readonly kind: "tool";
  readonly handler: ToolHandler;
}

export interface ToolSetDefinition extends PluginDefinitionBase {
  readonly kind: "toolSet";
}

export type PluginDefinition = ToolDefinition | ToolSetDefinition;

export interface DefineToolOptions {
  manifest: PluginManifest;
  handler: ToolHandler;
}

export interface ToolSetChildOptions {
  id: string;
  name: I18nString;
  description: I18nString;
  icon?: string;
  toolDescription?: string;
  handler: ToolHandler;
}

export interface DefineToolSetOptions {
  manifest: PluginManifest;
  secretSchema?: ObjectSchema;
  children: ToolSetChildOptions[];
}

/**
 * A plugin with one tool. Nothing is validated here: `plugin build`/`check` and the host report every
 * problem with its field path, which a throw during import could not.
 */
export function defineTool(options: DefineToolOptions): ToolDefinition {
  const { manifest, handler } = options;
  const child: ToolChild = {
    id: SINGLE_TOOL_CHILD_ID,
    name: manifest.name,
    description: manifest.description,
    ...(manifest.toolDescription === undefined ? {} : { toolDescription: manifest.toolDescription }),
    handler,
  };
  return Object.freeze({
    [PLUGIN_DEFINITION]: true as const,
    kind: "tool" as const,
    manifest,
    secretSchema: handler.secretSchema,
    children: Object.freeze([Object.freeze(child)]),
    handler,
  });
}

/** A plugin with several tools sharing one manifest and one secret schema. */
export function defineToolSet(options: DefineToolSetOptions): ToolSetDefinition {
  return Object.freeze({
    [PLUGIN_DEFINITION]: true as const,
    kind: "toolSet" as const,
    manifest: options.manifest,
    secretSchema: options.secretSchema,
    // Non-objects pass through untouched so build/check can name them precisely.
    children: Object.freeze(options.children.map((child) => (typeof child === "object" && child !== null ? Object.freeze({ ...child }) : child))),
  });
}

/** True for a `defineTool`/`defineToolSet` result, whichever copy of this SDK created it. */
export function isPluginDefinition(value: unknown): value is PluginDefinition {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Record<PropertyKey, unknown>>;
  return (
    candidate[PLUGIN_DEFINITION] === true &&
    (candidate.kind === "tool" || candidate.kind === "toolSet") &&
    Array.isArray(candidate.children)
  );
}
