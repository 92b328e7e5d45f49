import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { PLUGIN_ID_MAX_LENGTH, PLUGIN_ID_PATTERN } from "@skillport/plugin";
import { PluginBuildError } from "./diagnostics.js";
import { CHILD_LOGO_SVG, LOGO_SVG, TSCONFIG, VITEST_CONFIG, packageJson } from "./templates/shared.js";
import { TOOL_INDEX, TOOL_README, TOOL_TEST } from "./templates/tool.js";
import { SUITE_INDEX, SUITE_README, SUITE_TEST } from "./templates/tool-suite.js";
import { errorCode } from "@skillport/fs";

export const PLUGIN_TEMPLATES = ["tool", "tool-suite"] as const;
export type PluginTemplate = (typeof PLUGIN_TEMPLATES)[number];

export interface CreateOptions {
  /** The new plugin's directory name and pluginId, case kept (`MyTool`); package.json gets its kebab-case form. */
  name: string;
  type: PluginTemplate;
  /** Parent directory; the plugin goes to `<cwd>/<name>`. */
  cwd: string;
  /** package.json and README description. Default: a placeholder, as upstream. */
  description?: string;
}

const DEFAULT_PLUGIN_DESCRIPTION = "A FastGPT system-tool plugin";

export interface CreateResult {
  dir: string;
  /** Files written, sorted. */
  files: string[];
}

/** The words of a name: `MyTool` → My, Tool; `getHTTPStatus2` → get, HTTP, Status, 2; `a-b_c` → a, b, c. */
function wordsOf(name: string): string[] {
  return name.match(/[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+/g) ?? [];
}

/** FastGPT's CLI names the package in kebab case: `MyTool` → `my-tool`. */
export const kebabCase = (name: string): string =>
  wordsOf(name)
    .map((word) => word.toLowerCase())
    .join("-");

const titleOf = (name: string) =>
  wordsOf(name)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join(" ");

/** The files of a template for a plugin named `name`. */
export function templateFiles(
  name: string,
  type: PluginTemplate,
  description = DEFAULT_PLUGIN_DESCRIPTION,
): Record<string, string> {
  const fill = (text: string) => text.replaceAll("{{pluginId}}", name).replaceAll("{{title}}", titleOf(name));
  const files: Record<string, string> =
    type === "tool"
      ? { "index.ts": TOOL_INDEX, "index.spec.ts": TOOL_TEST, "README.md": TOOL_README }
      : {
          "index.ts": SUITE_INDEX,
          "index.spec.ts": SUITE_TEST,
          "README.md": SUITE_README,
          "sign.logo.svg": CHILD_LOGO_SVG,
        };
  const filled = Object.entries({
    ...files,
    "logo.svg": LOGO_SVG,
    "tsconfig.json": TSCONFIG,
    "vitest.config.ts": VITEST_CONFIG,
  }).map(([file, text]) => [file, fill(text)] as const);
  // The description is the author's text: it goes in as data (JSON, or a README line), never through fill().
  const readme = filled.find(([file]) => file === "README.md");
  const withDescription = filled.map(([file, text]) =>
    file === "README.md" && readme !== undefined
      ? ([file, text.replace(/\n\n/, `\n\n${description.replace(/\s+/g, " ").trim()}\n\n`)] as const)
      : ([file, text] as const),
  );
  return Object.fromEntries(
    [...withDescription, ["package.json", packageJson(kebabCase(name) || name, description)] as const]
      .map(([file, text]) => [file, fill(text)] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

/** Writes a new plugin from a template. Refuses to touch an existing directory. */
export async function createPlugin(options: CreateOptions): Promise<CreateResult> {
  if (!PLUGIN_ID_PATTERN.test(options.name) || options.name.length > PLUGIN_ID_MAX_LENGTH) {
    throw new PluginBuildError(
      `invalid plugin name ${JSON.stringify(options.name)}: use letters, digits, '-' and '_' (it becomes the pluginId)`,
      [],
      "PLUGIN_CREATE_INVALID",
    );
  }
  if (!(PLUGIN_TEMPLATES as readonly string[]).includes(options.type)) {
    throw new PluginBuildError(
      `unknown template type ${JSON.stringify(options.type)}: use ${PLUGIN_TEMPLATES.join(" or ")}`,
      [],
      "PLUGIN_CREATE_INVALID",
    );
  }
  const parent = resolve(options.cwd);
  const dir = join(parent, options.name);
  await mkdir(parent, { recursive: true });
  try {
    await mkdir(dir);
  } catch (error) {
    if (errorCode(error) === "EEXIST") {
      throw new PluginBuildError(
        `${options.name} already exists; refusing to overwrite it`,
        [],
        "PLUGIN_CREATE_EXISTS",
      );
    }
    throw error;
  }
  const files = templateFiles(options.name, options.type, options.description);
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text, { flag: "wx" });
  return { dir, files: Object.keys(files) };
}
