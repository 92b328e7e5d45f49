import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep, basename } from "node:path";
import {
  BUILT_BUNDLE_FILE,
  BUILT_MANIFEST_FILE,
  BuiltManifestSchema,
  INVOKE_PERMISSIONS,
  PLUGIN_MANIFEST_KEYS,
  SEMVER_PATTERN,
  toManifestIssues,
  type BuiltManifest,
  type JsonSchema,
  type PluginDescription,
} from "@skillport/plugin";
import { compilePlugin, ENTRY_FILE, README_FILE, type CompileOptions } from "./compile.js";
import { errorOf, hasErrorDiagnostics, warningOf, type PluginDiagnostic } from "./diagnostics.js";
import { isInside, openConfined, walkTree } from "@skillport/fs";
import { exists } from "./files.js";
import { listFiles } from "./build.js";
import { findInvokeUses, findSecretLiterals } from "./scan.js";

export interface CheckOptions extends CompileOptions {
  entry: string;
  /** The build output to verify, usually `<entry>/dist`. */
  output: string;
  /** Source files larger than this are not scanned for secrets. Default 2 MiB. */
  maxScanBytes?: number;
}

export interface CheckResult {
  /** True when there are no error diagnostics (warnings allowed). */
  ok: boolean;
  diagnostics: PluginDiagnostic[];
  /** The manifest a fresh build of the sources produces, when it builds. */
  manifest?: BuiltManifest;
}

const SOURCE_EXTENSIONS = /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SKIPPED_DIRS = new Set(["node_modules", "dist", "out", "coverage"]);
const DEFAULT_MAX_SCAN_BYTES = 2 * 1024 * 1024;

/**
 * Verifies a plugin against the publishing checklist: entry and default export, a complete bilingual
 * manifest, permissions matching the `ctx.invoke` calls, schema coverage, secrets only via secretSchema,
 * logo rules, and a `dist/` that exists and equals a fresh build of the sources.
 */
export async function checkPlugin(options: CheckOptions): Promise<CheckResult> {
  const entry = resolve(options.entry);
  const output = resolve(options.output);
  const distLabel =
    isInside(entry, output) && entry !== output ? relative(entry, output).split(sep).join("/") : basename(output);
  const diagnostics: PluginDiagnostic[] = [];

  if (!(await exists(entry))) return finish([errorOf("PLUGIN_ENTRY_MISSING", "the entry directory does not exist")]);
  if (!(await exists(join(entry, README_FILE)))) {
    diagnostics.push(
      warningOf("PLUGIN_README_MISSING", "README.md is missing; describe purpose, inputs, outputs, secrets and usage", {
        file: README_FILE,
      }),
    );
  }
  diagnostics.push(...(await scanSources(entry, output, options.maxScanBytes ?? DEFAULT_MAX_SCAN_BYTES)));

  const stage = await mkdtemp(join(tmpdir(), "skillport-check-"));
  try {
    const fresh = await compilePlugin(entry, stage, { ...options, minify: false });
    diagnostics.push(...fresh.diagnostics);
    if (fresh.description !== undefined && fresh.code !== undefined) {
      diagnostics.push(...checkDescription(fresh.description, fresh.code));
    }
    diagnostics.push(...(await checkDist(output, distLabel)));
    if (fresh.manifest !== undefined && (await exists(join(output, BUILT_MANIFEST_FILE)))) {
      diagnostics.push(...(await compareWithFreshBuild(entry, output, stage, distLabel, options)));
    }
    return finish(diagnostics, fresh.manifest);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

function finish(diagnostics: PluginDiagnostic[], manifest?: BuiltManifest): CheckResult {
  return { ok: !hasErrorDiagnostics(diagnostics), diagnostics, ...(manifest === undefined ? {} : { manifest }) };
}

/** Secret literals in the plugin's own sources, found with the one walker; links are skipped, never followed. */
async function scanSources(entry: string, output: string, maxBytes: number): Promise<PluginDiagnostic[]> {
  const entryReal = await realpath(entry);
  const outputRel = relative(entry, output).split(sep).join("/");
  const walked = walkTree(entryReal, {
    links: "exclude",
    onProblem: "collect",
    checkNames: false,
    exclude: (rel, isDir) => {
      const name = rel.slice(rel.lastIndexOf("/") + 1);
      if (isDir)
        return rel === outputRel || SKIPPED_DIRS.has(name) || name.startsWith(".") ? "not a source folder" : undefined;
      return SOURCE_EXTENSIONS.test(name) && !/\.(?:test|spec)\.[^.]+$/.test(name) ? undefined : "not a source file";
    },
  });
  const found: PluginDiagnostic[] = [];
  for (const file of walked.entries) {
    if (file.size > maxBytes) continue;
    const opened = openConfined(entryReal, file.path, { boundaryName: "the plugin" });
    try {
      const bytes = opened.readAllSync(maxBytes);
      if (bytes !== undefined) found.push(...findSecretLiterals(file.path, Buffer.from(bytes).toString("utf8")));
    } finally {
      opened.close();
    }
  }
  return found;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const TYPE_KEYS = ["type", "anyOf", "oneOf", "allOf", "enum", "const", "$ref", "not"];

/** Checks that need the definition: unknown keys, permissions vs. calls, schema coverage, secret flags. */
function checkDescription(description: PluginDescription, code: string): PluginDiagnostic[] {
  const found: PluginDiagnostic[] = [];
  const at = { file: ENTRY_FILE };
  const manifest = isObject(description.manifest) ? description.manifest : {};
  for (const key of Object.keys(manifest)) {
    if (!(PLUGIN_MANIFEST_KEYS as readonly string[]).includes(key)) {
      found.push(
        warningOf(
          "PLUGIN_MANIFEST_UNKNOWN_KEY",
          `manifest.${key} is not a manifest field and is dropped from the build`,
          at,
        ),
      );
    }
  }
  const declared = Array.isArray(manifest.permission)
    ? manifest.permission.filter((p): p is string => typeof p === "string")
    : [];
  const used = findInvokeUses(code);
  for (const capability of used) {
    const permission = INVOKE_PERMISSIONS[capability];
    if (!declared.includes(permission)) {
      found.push(
        errorOf(
          "PLUGIN_PERMISSION_MISSING",
          `the code calls ctx.invoke.${capability} but manifest.permission lacks "${permission}"`,
          at,
        ),
      );
    }
  }
  for (const permission of declared) {
    // Several calls may share one permission (teamInfo:read guards teamInfo and getWecomCorpToken).
    const guarded = Object.entries(INVOKE_PERMISSIONS)
      .filter(([, p]) => p === permission)
      .map(([capability]) => capability);
    if (guarded.length > 0 && !guarded.some((capability) => (used as string[]).includes(capability))) {
      const calls = guarded.map((capability) => `ctx.invoke.${capability}`).join(" or ");
      found.push(
        warningOf(
          "PLUGIN_PERMISSION_UNUSED",
          `manifest.permission declares "${permission}" but the code never calls ${calls}; declare only what is used`,
          at,
        ),
      );
    }
  }
  if (typeof manifest.version === "string" && !SEMVER_PATTERN.test(manifest.version)) {
    found.push(
      warningOf(
        "PLUGIN_VERSION_NOT_SEMVER",
        `manifest.version ${JSON.stringify(manifest.version)} is not a semantic version (such as 1.0.0); hosts compare versions as SemVer`,
        at,
      ),
    );
  }
  description.children.forEach((child, index) => {
    const where = description.kind === "tool" ? "handler" : `children[${index}] (${String(child.id)})`;
    found.push(...checkFields(child.inputSchema, `${where} input`, true));
    found.push(...checkFields(child.outputSchema, `${where} output`, false));
    // Only a child secret the top-level schema lacks is lost; a child repeating (part of) it loses nothing.
    if (description.kind === "toolSet" && child.secretSchema !== undefined) {
      const shared = propertiesOf(description.secretSchema);
      const lost = Object.keys(propertiesOf(child.secretSchema)).filter((name) => !Object.hasOwn(shared, name));
      if (lost.length > 0) {
        found.push(
          warningOf(
            "PLUGIN_CHILD_SECRET_IGNORED",
            `${where} declares secret ${lost.join(", ")} in its own secretSchema, which a tool set ignores; move it to the top-level defineToolSet secretSchema`,
            at,
          ),
        );
      }
    }
  });
  // An unset isSecret is fine (the host treats every secret value as secret); a non-boolean one is a mistake.
  for (const [name, field] of Object.entries(propertiesOf(description.secretSchema))) {
    if (isObject(field) && field.isSecret !== undefined && typeof field.isSecret !== "boolean") {
      found.push(
        warningOf(
          "PLUGIN_SECRET_FLAG_INVALID",
          `secret field ${name} sets isSecret to a ${typeof field.isSecret}; use true or false`,
          at,
        ),
      );
    }
  }
  return found.map((d) => ({ ...d, ...at }));
}

function propertiesOf(schema: JsonSchema | undefined): Record<string, unknown> {
  return schema !== undefined && isObject(schema.properties) ? schema.properties : {};
}

function checkFields(schema: JsonSchema | undefined, where: string, input: boolean): PluginDiagnostic[] {
  const found: PluginDiagnostic[] = [];
  if (schema === undefined) return found;
  for (const [name, field] of Object.entries(propertiesOf(schema))) {
    if (!isObject(field)) continue;
    if (!TYPE_KEYS.some((key) => key in field)) {
      found.push(
        warningOf("PLUGIN_FIELD_UNTYPED", `${where} field ${name} accepts anything; give it a concrete zod type`),
      );
    }
    if (typeof field.title !== "string" && typeof field.description !== "string") {
      found.push(
        warningOf(
          "PLUGIN_FIELD_UNLABELLED",
          `${where} field ${name} has no title or description for users; add .meta({title: ...})`,
        ),
      );
    }
    // No isToolParam is not reported: like FastGPT, the build infers it from toolDescription (inferToolParams).
    if (input && field.isToolParam !== undefined && typeof field.isToolParam !== "boolean") {
      found.push(
        warningOf(
          "PLUGIN_TOOL_PARAM_INVALID",
          `${where} field ${name} sets isToolParam to a ${typeof field.isToolParam}; use true or false`,
        ),
      );
    }
  }
  return found;
}

/** The output must hold a build: index.js, a valid manifest.json, and every icon it names. */
async function checkDist(output: string, label: string): Promise<PluginDiagnostic[]> {
  if (!(await exists(output)))
    return [errorOf("PLUGIN_DIST_MISSING", `${label}/ does not exist; run plugin build first`, { file: label })];
  const found: PluginDiagnostic[] = [];
  if (!(await exists(join(output, BUILT_BUNDLE_FILE)))) {
    found.push(
      errorOf("PLUGIN_DIST_BUNDLE_MISSING", `${label}/${BUILT_BUNDLE_FILE} is missing; run plugin build`, {
        file: `${label}/${BUILT_BUNDLE_FILE}`,
      }),
    );
  }
  const manifestFile = `${label}/${BUILT_MANIFEST_FILE}`;
  let text: string;
  try {
    text = await readFile(join(output, BUILT_MANIFEST_FILE), "utf8");
  } catch {
    return [
      ...found,
      errorOf("PLUGIN_DIST_MANIFEST_MISSING", `${manifestFile} is missing; run plugin build`, { file: manifestFile }),
    ];
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return [
      ...found,
      errorOf("PLUGIN_DIST_MANIFEST_INVALID", `${manifestFile} is not valid JSON (${(error as Error).message})`, {
        file: manifestFile,
      }),
    ];
  }
  const parsed = BuiltManifestSchema.safeParse(value);
  if (!parsed.success) {
    for (const issue of toManifestIssues(parsed.error)) {
      found.push(
        errorOf("PLUGIN_DIST_MANIFEST_INVALID", `${manifestFile} ${issue.path}: ${issue.message}`, {
          file: manifestFile,
        }),
      );
    }
    return found;
  }
  const icons = new Set([parsed.data.icon, ...(parsed.data.children ?? []).map((c) => c.icon)]);
  for (const icon of [...icons].sort()) {
    if (!(await exists(join(output, icon)))) {
      found.push(
        errorOf("PLUGIN_DIST_ICON_MISSING", `${manifestFile} names icon ${icon}, which is not in ${label}/`, {
          file: manifestFile,
        }),
      );
    }
  }
  return found;
}

/** dist/ must equal what the sources build to now (unminified or minified); otherwise it is stale. */
async function compareWithFreshBuild(
  entry: string,
  output: string,
  stage: string,
  label: string,
  options: CompileOptions,
): Promise<PluginDiagnostic[]> {
  let differences = await differingFiles(output, stage);
  if (differences.includes(BUILT_BUNDLE_FILE)) {
    const minified = await mkdtemp(join(tmpdir(), "skillport-check-"));
    try {
      const again = await compilePlugin(entry, minified, { ...options, minify: true });
      if (again.manifest !== undefined) {
        const alt = await differingFiles(output, minified);
        if (alt.length < differences.length) differences = alt;
      }
    } finally {
      await rm(minified, { recursive: true, force: true });
    }
  }
  return differences.map((file) =>
    errorOf("PLUGIN_DIST_STALE", `${label}/${file} does not match a fresh build of the sources; run plugin build`, {
      file: `${label}/${file}`,
    }),
  );
}

async function differingFiles(actualDir: string, expectedDir: string): Promise<string[]> {
  const actual = await listFiles(actualDir);
  const expected = await listFiles(expectedDir);
  const all = [...new Set([...actual, ...expected])].sort();
  const different: string[] = [];
  for (const file of all) {
    if (!actual.includes(file) || !expected.includes(file)) {
      different.push(file);
      continue;
    }
    const [a, b] = await Promise.all([readFile(join(actualDir, file)), readFile(join(expectedDir, file))]);
    if (!a.equals(b)) different.push(file);
  }
  return different;
}
