import { z } from "zod";

/** Tags a plugin may carry (FastGPT's enum, kept verbatim). */
export const PLUGIN_TAGS = [
  "tools",
  "search",
  "multimodal",
  "communication",
  "finance",
  "design",
  "productivity",
  "news",
  "entertainment",
  "social",
  "scientific",
  "other",
] as const;
export type PluginTag = (typeof PLUGIN_TAGS)[number];

/** Host capabilities a plugin may ask for; each guards one `ctx.invoke.*` call. */
export const PLUGIN_PERMISSIONS = [
  "userInfo:read",
  "teamInfo:read",
  "model:read",
  "dataset:read",
  "file-upload:allow",
] as const;
export type PluginPermission = (typeof PLUGIN_PERMISSIONS)[number];

/** The fields a user manifest may have; anything else is reported as unknown by `plugin check`. */
export const PLUGIN_MANIFEST_KEYS = [
  "pluginId",
  "version",
  "name",
  "description",
  "versionDescription",
  "author",
  "repoUrl",
  "tutorialUrl",
  "tags",
  "permission",
  "icon",
  "toolDescription",
] as const;

/**
 * FastGPT accepts any string as a pluginId; ids are case-preserving (`getTime`, `DingTalkWebhook`). We accept the
 * subset that is safe as a file and URL segment: letters, digits, '-' and '_', starting with a letter or digit.
 */
export const PLUGIN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const PLUGIN_ID_MAX_LENGTH = 64;
export const PLUGIN_VERSION_MAX_LENGTH = 64;
// Semantic Versioning 2.0.0 (numeric parts without leading zeros, optional pre-release and build).
export const SEMVER_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

const text = z.string().trim().min(1, "must not be empty");

/** A user-visible string in English and Simplified Chinese (both required), optionally Traditional Chinese. */
export const I18nStringSchema = z.object({
  en: text,
  "zh-CN": text,
  "zh-Hant": text.optional(),
});
export type I18nString = z.infer<typeof I18nStringSchema>;

const httpUrl = z
  .string()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "must be an http(s) URL");

export const PluginPermissionSchema = z.enum(PLUGIN_PERMISSIONS, {
  error: () => `must be one of ${PLUGIN_PERMISSIONS.join(", ")}`,
});
export const PluginTagSchema = z.enum(PLUGIN_TAGS, { error: () => `must be one of ${PLUGIN_TAGS.join(", ")}` });

/** The manifest a plugin author writes in `defineTool`/`defineToolSet`. */
export const PluginManifestSchema = z.object({
  pluginId: z
    .string()
    .max(PLUGIN_ID_MAX_LENGTH, `must be at most ${PLUGIN_ID_MAX_LENGTH} characters`)
    .regex(PLUGIN_ID_PATTERN, "must use letters, digits, '-' and '_' (starting with a letter or digit)"),
  // Upstream takes any version string ("1.0" exists); `plugin check` recommends SemVer with a warning.
  version: z
    .string()
    .trim()
    .min(1, { message: "must not be empty", abort: true })
    .max(PLUGIN_VERSION_MAX_LENGTH, `must be at most ${PLUGIN_VERSION_MAX_LENGTH} characters`)
    .regex(/^[0-9A-Za-z.+_-]+$/, "must use letters, digits, '.', '+', '-' and '_'"),
  name: I18nStringSchema,
  description: I18nStringSchema,
  versionDescription: I18nStringSchema.optional(),
  author: z.string().optional(),
  repoUrl: httpUrl.optional(),
  tutorialUrl: httpUrl.optional(),
  tags: z.array(PluginTagSchema).optional(),
  permission: z
    .array(PluginPermissionSchema)
    .superRefine((values, ctx) => {
      values.forEach((value, index) => {
        if (values.indexOf(value) !== index) {
          ctx.addIssue({ code: "custom", path: [index], message: `duplicate permission ${JSON.stringify(value)}` });
        }
      });
    })
    .optional(),
  icon: z.string().optional(),
  toolDescription: z.string().optional(),
});

/** What the author writes (the type `defineTool` checks at compile time). */
export type PluginManifest = z.input<typeof PluginManifestSchema>;

/** One problem in a manifest: `path` is like `name.zh-CN` or `permission[1]`. */
export interface ManifestIssue {
  path: string;
  message: string;
}

export type ManifestParseResult =
  { ok: true; manifest: z.output<typeof PluginManifestSchema>; issues: [] } | { ok: false; issues: ManifestIssue[] };

/** Formats a zod issue path as `a.b[0].c`; the empty path is `(root)`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? "(root)" : out;
}

/** Converts zod issues into `{path, message}` pairs, prefixing each path with `prefix` when given. */
export function toManifestIssues(error: z.ZodError, prefix = ""): ManifestIssue[] {
  return error.issues.map((issue) => {
    const path = formatIssuePath(issue.path);
    const full = prefix === "" ? path : path === "(root)" ? prefix : `${prefix}.${path}`;
    return {
      path: full,
      message:
        issue.code === "invalid_type" && issue.message.endsWith("received undefined") ? "is required" : issue.message,
    };
  });
}

/** Validates a user manifest; never throws. */
export function parsePluginManifest(value: unknown): ManifestParseResult {
  const result = PluginManifestSchema.safeParse(value);
  if (result.success) return { ok: true, manifest: result.data, issues: [] };
  return { ok: false, issues: toManifestIssues(result.error, "manifest") };
}
