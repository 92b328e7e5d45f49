import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { PLUGIN_ID_MAX_LENGTH, PLUGIN_ID_PATTERN } from "@skillport/plugin";
import { PluginBuildError } from "./diagnostics.js";
import { CHILD_LOGO_SVG, LOGO_SVG, TSCONFIG, packageJson } from "./templates/shared.js";
import { TOOL_INDEX, TOOL_README, TOOL_TEST } from "./templates/tool.js";
import { SUITE_INDEX, SUITE_README, SUITE_TEST } from "./templates/tool-suite.js";

export const PLUGIN_TEMPLATES = ["tool", "tool-suite"] as const;
export type PluginTemplate = (typeof PLUGIN_TEMPLATES)[number];

export interface CreateOptions {
  /** The new plugin's directory name and pluginId. */
  name: string;
  type: PluginTemplate;
  /** Parent directory; the plugin goes to `<cwd>/<name>`. */
  cwd: string;
}

export interface CreateResult {
  dir: string;
  /** Files written, sorted. */
  files: string[];
}

const titleOf = (name: string) =>
  name
    .split(/[-_]+/)
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join(" ");

/** The files of a template for a plugin named `name`. */
export function templateFiles(name: string, type: PluginTemplate): Record<string, string> {
  const fill = (text: string) => text.replaceAll("{{pluginId}}", name).replaceAll("{{title}}", titleOf(name));
  const files: Record<string, string> =
    type === "tool"
      ? { "index.ts": TOOL_INDEX, "index.test.ts": TOOL_TEST, "README.md": TOOL_README }
      : { "index.ts": SUITE_INDEX, "index.test.ts": SUITE_TEST, "README.md": SUITE_README, "sign.logo.svg": CHILD_LOGO_SVG };
  return Object.fromEntries(
    Object.entries({ ...files, "logo.svg": LOGO_SVG, "package.json": packageJson(name), "tsconfig.json": TSCONFIG })
      .map(([file, text]) => [file, fill(text)] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

/** Writes a new plugin from a template. Refuses to touch an existing directory. */
export async function createPlugin(options: CreateOptions): Promise<CreateResult> {
  if (!PLUGIN_ID_PATTERN.test(options.name) || options.name.length > PLUGIN_ID_MAX_LENGTH) {
    throw new PluginBuildError(
      `invalid plugin name ${JSON.stringify(options.name)}: use lowercase letters, digits, '-' and '_' (it becomes the pluginId)`,
      [],
      "PLUGIN_CREATE_INVALID",
    );
  }
  if (!(PLUGIN_TEMPLATES as readonly string[]).includes(options.type)) {
    throw new PluginBuildError(`unknown template type ${JSON.stringify(options.type)}: use ${PLUGIN_TEMPLATES.join(" or ")}`, [], "PLUGIN_CREATE_INVALID");
  }
  const parent = resolve(options.cwd);
  const dir = join(parent, options.name);
  await mkdir(parent, { recursive: true });
  try {
    await mkdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new PluginBuildError(`${options.name} already exists; refusing to overwrite it`, [], "PLUGIN_CREATE_EXISTS");
    }
    throw error;
  }
  const files = templateFiles(options.name, options.type);
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text, { flag: "wx" });
  return { dir, files: Object.keys(files) };
}
