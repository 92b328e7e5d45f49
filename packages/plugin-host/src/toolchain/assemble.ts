import {
  BuiltManifestSchema,
  inferToolParams,
  I18nStringSchema,
  parsePluginManifest,
  toManifestIssues,
  type BuiltChild,
  type BuiltManifest,
  type I18nString,
  type PluginDescription,
} from "@skillport/plugin";
import { errorOf, type PluginDiagnostic } from "./diagnostics.js";
import { checkDeclaredIcon, type LogoScan } from "./logos.js";

const CHILD_ID = /^[A-Za-z0-9_-]+$/;

/** The child ids a description declares (only valid strings), for the logo scan. */
export function childIdsOf(description: PluginDescription): string[] {
  if (description.kind === "tool") return [];
  return description.children
    .map((child) => child.id)
    .filter((id): id is string => typeof id === "string" && CHILD_ID.test(id));
}

const toolDescriptionOf = (explicit: unknown, description: I18nString): string =>
  typeof explicit === "string" && explicit.trim() !== "" ? explicit : description["zh-CN"] || description.en;

/**
 * Turns what the bundle declared plus the logo scan into `dist/manifest.json`. Every problem becomes an
 * error diagnostic naming its field path; the manifest is returned only when there are none.
 */
export function assembleManifest(
  description: PluginDescription,
  logos: LogoScan,
  manifestFile: string,
): { manifest?: BuiltManifest; diagnostics: PluginDiagnostic[] } {
  const diagnostics: PluginDiagnostic[] = [...logos.diagnostics];
  const at = { file: manifestFile };
  const parsed = parsePluginManifest(description.manifest);
  if (!parsed.ok) {
    for (const issue of parsed.issues)
      diagnostics.push(errorOf("PLUGIN_MANIFEST_INVALID", `${issue.path}: ${issue.message}`, at));
  }
  for (const problem of description.problems) diagnostics.push(errorOf("PLUGIN_SCHEMA_INVALID", problem, at));
  const rawManifest = (
    typeof description.manifest === "object" && description.manifest !== null ? description.manifest : {}
  ) as Record<string, unknown>;
  diagnostics.push(...checkDeclaredIcon(rawManifest.icon, "manifest.icon", logos.main).map((d) => ({ ...d, ...at })));

  const children: BuiltChild[] = [];
  if (description.kind === "toolSet") {
    if (description.children.length === 0)
      diagnostics.push(errorOf("PLUGIN_SCHEMA_INVALID", "children: a tool set needs at least one child", at));
    const seen = new Set<unknown>();
    description.children.forEach((child, index) => {
      const where = `children[${index}]`;
      if (typeof child.id !== "string" || !CHILD_ID.test(child.id)) {
        diagnostics.push(
          errorOf(
            "PLUGIN_CHILD_INVALID",
            `${where}.id: must be a non-empty string of letters, digits, '-' and '_'`,
            at,
          ),
        );
      } else if (seen.has(child.id)) {
        diagnostics.push(
          errorOf("PLUGIN_CHILD_INVALID", `${where}.id: duplicate child id ${JSON.stringify(child.id)}`, at),
        );
      }
      seen.add(child.id);
      const name = I18nStringSchema.safeParse(child.name);
      const text = I18nStringSchema.safeParse(child.description);
      if (!name.success)
        for (const i of toManifestIssues(name.error, `${where}.name`))
          diagnostics.push(errorOf("PLUGIN_CHILD_INVALID", `${i.path}: ${i.message}`, at));
      if (!text.success)
        for (const i of toManifestIssues(text.error, `${where}.description`))
          diagnostics.push(errorOf("PLUGIN_CHILD_INVALID", `${i.path}: ${i.message}`, at));
      const id = typeof child.id === "string" ? child.id : "";
      const icon = logos.children.get(id) ?? logos.main;
      diagnostics.push(...checkDeclaredIcon(child.icon, `${where}.icon`, icon).map((d) => ({ ...d, ...at })));
      if (name.success && text.success && child.inputSchema && child.outputSchema && icon !== undefined) {
        children.push({
          id,
          name: name.data,
          description: text.data,
          icon,
          toolDescription: toolDescriptionOf(child.toolDescription, text.data),
          inputSchema: inferToolParams(child.inputSchema),
          outputSchema: child.outputSchema,
        });
      }
    });
  }
  if (diagnostics.some((d) => d.severity === "error") || !parsed.ok || logos.main === undefined) return { diagnostics };

  const m = parsed.manifest;
  const single = description.children[0];
  const built = {
    type: "tool" as const,
    pluginId: m.pluginId,
    version: m.version,
    name: m.name,
    description: m.description,
    ...(m.versionDescription === undefined ? {} : { versionDescription: m.versionDescription }),
    ...(m.author === undefined ? {} : { author: m.author }),
    ...(m.repoUrl === undefined ? {} : { repoUrl: m.repoUrl }),
    ...(m.tutorialUrl === undefined ? {} : { tutorialUrl: m.tutorialUrl }),
    ...(m.tags === undefined ? {} : { tags: m.tags }),
    permission: m.permission ?? [],
    icon: logos.main,
    toolDescription: toolDescriptionOf(m.toolDescription, m.description),
    ...(description.secretSchema === undefined ? {} : { secretSchema: description.secretSchema }),
    ...(description.kind === "tool"
      ? {
          inputSchema: single?.inputSchema === undefined ? undefined : inferToolParams(single.inputSchema),
          outputSchema: single?.outputSchema,
        }
      : { children }),
  };
  // The assembled manifest must satisfy the schema the host reads it with; a failure here is a build bug.
  const check = BuiltManifestSchema.safeParse(built);
  if (!check.success) {
    return {
      diagnostics: toManifestIssues(check.error).map((i) =>
        errorOf("PLUGIN_MANIFEST_INVALID", `built manifest ${i.path}: ${i.message}`, at),
      ),
    };
  }
  return { manifest: built as BuiltManifest, diagnostics };
}
