import { z } from "zod";
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

/** A tool-set child's descriptive fields, as upstream's `ToolChildManifestDefinition`. */
export interface ToolChildManifest {
  id: string;
  name: I18nString;
  description: I18nString;
  icon?: string;
  toolDescription?: string;
}

/** Upstream's `DefinedToolFactory` methods, with its behaviour (a plugin's own tests call these). */
export interface DefinitionMethods {
  /** The manifest as written. */
  getUserToolManifest(): PluginManifest;
  /** The handler of child `childId` (default `tool`, a single tool's id); undefined when there is none. */
  getToolHandler(childId?: string): ToolHandler | undefined;
  /** A tool set's children without their handlers; empty for a single tool. */
  getChildManifests(): ToolChildManifest[];
  /** The secret schema, or an empty `z.object({})` when the plugin declares none. */
  getSecretSchema(): ObjectSchema;
  /** Replaces the secret schema (upstream's `setSecretSchema`). */
  setSecretSchema(schema: ObjectSchema): void;
  /** Adds or replaces a tool (upstream's `registerTool`); a child manifest makes it a listed child. */
  registerTool(handler: ToolHandler, id?: string, childManifest?: ToolChildManifest): void;
  /** Upstream's ToolFactory fields, which plugins' own tests read: the manifest, handlers and child manifests by id. */
  readonly userToolManifest: PluginManifest;
  readonly toolHandlers: ReadonlyMap<string, ToolHandler>;
  readonly childManifests: ReadonlyMap<string, ToolChildManifest>;
}

interface PluginDefinitionBase extends DefinitionMethods {
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
  /** Ignored, as upstream ignores it: a single tool's secrets come from `handler.secretSchema`. */
  secretSchema?: ObjectSchema;
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
 * The mutable registry behind a definition (upstream's ToolFactory keeps the same): handlers by id, child
 * manifests by id, one secret schema. The definition object itself is frozen; only these change.
 */
interface Registry {
  handlers: Map<string, ToolHandler>;
  childManifests: Map<string, ToolChildManifest>;
  secretSchema: ObjectSchema | undefined;
}

function childManifestOf(child: ToolSetChildOptions): ToolChildManifest {
  return {
    id: child.id,
    name: child.name,
    description: child.description,
    ...(child.icon === undefined ? {} : { icon: child.icon }),
    ...(child.toolDescription === undefined ? {} : { toolDescription: child.toolDescription }),
  };
}

function methodsOf(manifest: PluginManifest, registry: Registry): DefinitionMethods {
  return {
    userToolManifest: manifest,
    toolHandlers: registry.handlers,
    childManifests: registry.childManifests,
    getUserToolManifest: () => manifest,
    getToolHandler: (childId = SINGLE_TOOL_CHILD_ID) => registry.handlers.get(childId),
    getChildManifests: () => [...registry.childManifests.values()].map((child) => ({ ...child })),
    getSecretSchema: () => registry.secretSchema ?? z.object({}),
    setSecretSchema: (schema) => {
      registry.secretSchema = schema;
    },
    registerTool: (handler, id = SINGLE_TOOL_CHILD_ID, childManifest) => {
      registry.handlers.set(id, handler);
      if (childManifest !== undefined) registry.childManifests.set(id, { ...childManifest, id });
    },
  };
}

/**
 * A plugin with one tool. Nothing is validated here: `plugin build`/`check` and the host report every
 * problem with its field path, which a throw during import could not.
 */
export function defineTool(options: DefineToolOptions): ToolDefinition {
  const { manifest, handler } = options;
  const registry: Registry = {
    handlers: new Map([[SINGLE_TOOL_CHILD_ID, handler]]),
    childManifests: new Map(),
    secretSchema: handler.secretSchema,
  };
  const single = (): ToolHandler => registry.handlers.get(SINGLE_TOOL_CHILD_ID) ?? handler;
  const definition = {
    [PLUGIN_DEFINITION]: true as const,
    kind: "tool" as const,
    manifest,
    get secretSchema() {
      return registry.secretSchema;
    },
    get children(): readonly ToolChild[] {
      const child: ToolChild = {
        id: SINGLE_TOOL_CHILD_ID,
        name: manifest.name,
        description: manifest.description,
        ...(manifest.toolDescription === undefined ? {} : { toolDescription: manifest.toolDescription }),
        handler: single(),
      };
      return Object.freeze([Object.freeze(child)]);
    },
    get handler() {
      return single();
    },
    ...methodsOf(manifest, registry),
  };
  return Object.freeze(definition);
}

/** A plugin with several tools sharing one manifest and one secret schema. */
export function defineToolSet(options: DefineToolSetOptions): ToolSetDefinition {
  // Children stay a list in the author's order (duplicates included, so build can name them); the maps serve the
  // upstream methods. Non-objects pass through untouched so build/check can name them precisely.
  const entries: unknown[] = options.children.map((child) =>
    typeof child === "object" && child !== null ? Object.freeze({ ...child }) : child,
  );
  const registry: Registry = { handlers: new Map(), childManifests: new Map(), secretSchema: options.secretSchema };
  for (const child of options.children) {
    if (typeof child !== "object" || child === null) continue;
    registry.handlers.set(child.id, child.handler);
    registry.childManifests.set(child.id, childManifestOf(child));
  }
  const methods = methodsOf(options.manifest, registry);
  const definition = {
    [PLUGIN_DEFINITION]: true as const,
    kind: "toolSet" as const,
    manifest: options.manifest,
    get secretSchema() {
      return registry.secretSchema;
    },
    get children(): readonly ToolChild[] {
      return Object.freeze([...entries]) as readonly ToolChild[];
    },
    ...methods,
    registerTool(handler: ToolHandler, id: string = SINGLE_TOOL_CHILD_ID, childManifest?: ToolChildManifest): void {
      methods.registerTool(handler, id, childManifest);
      const listed = registry.childManifests.get(id);
      if (listed === undefined) return; // upstream: a tool without a child manifest is callable but not listed
      const child = Object.freeze({ ...listed, handler });
      const at = entries.findIndex(
        (entry) => typeof entry === "object" && entry !== null && (entry as ToolChild).id === id,
      );
      if (at === -1) entries.push(child);
      else entries[at] = child;
    },
  };
  return Object.freeze(definition);
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
