import { z } from "zod";
import { I18nStringSchema, PluginManifestSchema } from "./manifest.js";

/** A JSON Schema document as zod's `z.toJSONSchema` writes it (with the `.meta()` keys kept). */
export type JsonSchema = { [key: string]: unknown };

const jsonSchema = z.record(z.string(), z.unknown());
const objectJsonSchema = jsonSchema.refine(
  (value) => value.type === "object",
  'must be an object schema (type "object")',
);
const fileName = z
  .string()
  .regex(/^[A-Za-z0-9._-]+$/, "must be a plain file name (letters, digits, '.', '_', '-')")
  .refine((value) => value !== "." && value !== "..", "must be a plain file name");

export const BuiltChildSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/, "must use letters, digits, '-' and '_'"),
  name: I18nStringSchema,
  description: I18nStringSchema,
  icon: fileName,
  toolDescription: z.string(),
  inputSchema: objectJsonSchema,
  outputSchema: objectJsonSchema,
});

/**
 * `dist/manifest.json`: the user manifest plus what the build derives. A single tool carries
 * `inputSchema`/`outputSchema`; a tool set carries `children` instead.
 */
export const BuiltManifestSchema = PluginManifestSchema.extend({
  type: z.literal("tool"),
  // FastGPT's own CLI writes no permission field when none is declared: absent means none.
  permission: PluginManifestSchema.shape.permission.unwrap().default([]),
  icon: fileName,
  toolDescription: z.string(),
  secretSchema: objectJsonSchema.optional(),
  inputSchema: objectJsonSchema.optional(),
  outputSchema: objectJsonSchema.optional(),
  children: z.array(BuiltChildSchema).min(1, "a tool set needs at least one child").optional(),
}).superRefine((manifest, ctx) => {
  const single = manifest.inputSchema !== undefined || manifest.outputSchema !== undefined;
  if (single && manifest.children !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["children"],
      message: "a manifest has either inputSchema/outputSchema or children, not both",
    });
  } else if (!single && manifest.children === undefined) {
    ctx.addIssue({ code: "custom", path: ["inputSchema"], message: "is required (or children for a tool set)" });
  } else if (single && (manifest.inputSchema === undefined || manifest.outputSchema === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: [manifest.inputSchema === undefined ? "inputSchema" : "outputSchema"],
      message: "is required",
    });
  }
  const ids = new Set<string>();
  manifest.children?.forEach((child, index) => {
    if (ids.has(child.id))
      ctx.addIssue({
        code: "custom",
        path: ["children", index, "id"],
        message: `duplicate child id ${JSON.stringify(child.id)}`,
      });
    ids.add(child.id);
  });
});

export type BuiltChild = z.infer<typeof BuiltChildSchema>;
export type BuiltManifest = z.infer<typeof BuiltManifestSchema>;

/** The file the build writes next to `index.js`. */
export const BUILT_MANIFEST_FILE = "manifest.json";
export const BUILT_BUNDLE_FILE = "index.js";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * FastGPT's rule for an input field that does not say whether the model fills it: a field with a non-empty
 * `toolDescription` is a tool parameter; any other is not, and gets its `description` as `toolDescription`.
 * An explicit `isToolParam` is kept. Returns a new schema; the argument is not changed.
 */
export function inferToolParams(schema: JsonSchema): JsonSchema {
  if (!isRecord(schema.properties)) return schema;
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([key, raw]) => {
      if (!isRecord(raw)) return [key, raw];
      const field = { ...raw };
      const hasToolDescription = typeof field.toolDescription === "string" && field.toolDescription !== "";
      const fallback = descriptionText(field.description);
      if (!hasToolDescription && fallback !== undefined) field.toolDescription = fallback;
      if (field.isToolParam === undefined) field.isToolParam = hasToolDescription;
      return [key, field];
    }),
  );
  return { ...schema, properties };
}

function descriptionText(value: unknown): string | undefined {
  if (typeof value === "string" && value !== "") return value;
  const en = isRecord(value) ? value.en : undefined;
  return typeof en === "string" && en !== "" ? en : undefined;
}
