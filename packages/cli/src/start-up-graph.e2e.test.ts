// The module-graph rule (decision 0202), checked on the BUILT binary: the commands that must start fast load only
// the leaves they need. A loader hook records every module the process loads; a later import that brings the skill
// provider, core's parser or `yaml` back into these paths fails here, whatever the timing of the day.
// Both builds are checked: dist/main.js (separate modules, what a library user's imports load) and dist/cli.js, the
// bundle the `skillport` bin runs (decision 0220), whose chunks are mapped back to the modules they hold.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { modulesOf } from "./__fixtures__/bundle-modules.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dist = path.join(repo, "packages/cli/dist");

// Runs in the loader thread: every module the process loads (ESM, and CJS reached by an import) goes to stderr.
const HOOK = `export async function load(url, context, next) { if (url.startsWith("file:")) process._rawDebug("loaded-module " + url); return next(url, context); }`;
// CommonJS loaded on demand by `require` (core loads `yaml` so, decision 0210) never meets the hook: at exit, the
// CommonJS cache lists it.
const CJS_AT_EXIT = `process.on("exit", () => { for (const file of Object.keys(createRequire(process.execPath).cache)) process._rawDebug("loaded-module " + pathToFileURL(file)); });`;
const REGISTER = `import { createRequire, register } from "node:module"; import { pathToFileURL } from "node:url"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)}); ${CJS_AT_EXIT}`;

/** The repository-relative paths of the modules a run of the built CLI loads, and its result. */
function loadedBy(bin: string, args: readonly string[]) {
  const run = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(REGISTER)}`, bin, ...args], {
    cwd: repo,
    encoding: "utf8",
    env: { ...process.env, FORCE_COLOR: undefined },
  });
  const files = [...run.stderr.matchAll(/^loaded-module (\S+)$/gm)].map((m) => path.relative(repo, fileURLToPath(m[1]!)));
  const modules = [...new Set(files.flatMap(modulesOf))];
  return { code: run.status, stdout: run.stdout, stderr: run.stderr.replace(/^loaded-module .*\n/gm, ""), files, modules };
}

/** The modules a bare `import()` of a built package entry loads (what a library user of that entry pays for). */
function loadedByImport(specifier: string) {
  const run = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(REGISTER)}`, "--input-type=module", "-e", `await import(${JSON.stringify(specifier)});`], {
    cwd: repo,
    encoding: "utf8",
  });
  const modules = [...run.stderr.matchAll(/^loaded-module (\S+)$/gm)].map((m) => path.relative(repo, fileURLToPath(m[1]!)));
  return { code: run.status, modules };
}

const inPackage = (modules: readonly string[], pkg: string) => modules.filter((m) => m.startsWith(`packages/${pkg}/`)).sort();
const fromNodeModules = (modules: readonly string[], name: string) => modules.filter((m) => m.includes(`node_modules/${name}/`));

// The leaves the light paths may load: core's error classes, path rules and code-unit order, the small fs floor, the
// version id. Nothing else of core (parser, lint, registry, catalog, search) or fs (provider, discovery, watcher).
const CORE_LEAVES = ["packages/core/dist/compare.js", "packages/core/dist/errors.js", "packages/core/dist/redact-uri.js", "packages/core/dist/safe-path.js"];
// dir-fd: writes pinned by folder descriptors (decision 0230), one small module on node:fs and core's errors.
// state-file: parseStateText, the one reading of a state file through its schema (decision 0321; no imports, no zod).
const FS_FLOOR = ["packages/fs/dist/atomic.js", "packages/fs/dist/confine.js", "packages/fs/dist/dir-fd.js", "packages/fs/dist/errno.js", "packages/fs/dist/floor.js", "packages/fs/dist/state-file.js"];
const FS_TREE = [...FS_FLOOR, "packages/fs/dist/dir-entries.js", "packages/fs/dist/file-limits.js", "packages/fs/dist/open-confined.js", "packages/fs/dist/tree.js", "packages/fs/dist/walk.js"];
const beyond = (modules: readonly string[], pkg: string, allowed: readonly string[]) => inPackage(modules, pkg).filter((m) => !allowed.includes(m));
// What packing must never load: the package barrels, the skill provider and discovery, the registry, catalog and search.
// `@skillport/fs`'s main entry is one bundled module (decision 0215); dist/index.js is what it was bundled from.
const FS_MAIN = "packages/fs/dist/index.bundle.js";
const BARRELS = ["packages/core/dist/index.js", "packages/core/dist/internal.js", "packages/fs/dist/index.js", FS_MAIN, "packages/pack/dist/index.js"];
const PROVIDER_AND_SEARCH = /^packages\/(core\/dist\/(registry|memory|skill|catalog\/|search\/)|fs\/dist\/(index\.bundle|provider|skill-directory|skill-source|locators|roots|watch|repository))/;

const work = mkdtempSync(path.join(os.tmpdir(), "skillport-graph-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const builds = [
  { build: "dist/main.js (separate modules)", bin: path.join(dist, "main.js") },
  { build: "dist/cli.js (the bundle the bin runs)", bin: path.join(dist, "cli.js") },
];

describe("the skillport bin", () => {
  it("runs the bundle, not the separate modules (decision 0220)", () => {
    const run = loadedBy(path.join(repo, "packages/cli/bin/skillport.js"), ["exec", "--help"]);
    expect(run.code).toBe(0);
    expect(run.files).toContain("packages/cli/dist/cli.js");
    const code = run.files.filter((f) => f.startsWith("packages/") && f.endsWith(".js"));
    expect(code.filter((f) => !f.startsWith("packages/cli/dist/cli") && f !== "packages/cli/bin/skillport.js")).toEqual([]);
    expect(run.modules).toContain("packages/cli/dist/commands/exec.js");
  });
});

describe("@skillport/fs as a library", () => {
  it("@skillport/fs loads core's leaves it uses (parser, errors, path rules, Skill), never core's barrels, registry, catalog, search or lint", () => {
    const run = loadedByImport("@skillport/fs");
    expect(run.code).toBe(0);
    expect(run.modules).toContain("packages/core/dist/parse.js");
    // One module for all of fs's own code: the loader's cost per module was a fixed cost of every listing (0215).
    expect(inPackage(run.modules, "fs")).toEqual([FS_MAIN]);
    expect(run.modules.filter((m) => BARRELS.slice(0, 2).includes(m))).toEqual([]);
    expect(inPackage(run.modules, "core").filter((m) => /\/(registry|memory|lint|validate|catalog\/|search\/)/.test(m))).toEqual([]);
    for (const heavy of ["yaml", "stemmer", "chokidar"]) expect(fromNodeModules(run.modules, heavy), heavy).toEqual([]);
    // What only writing needs (the repository's save rules, the Skill model, the serialiser) loads when it writes (0215).
    expect(inPackage(run.modules, "core").filter((m) => /\/(save-batch|skill|serialize)\.js$/.test(m))).toEqual([]);
  });

  it("@skillport/fs loads neither node:crypto nor node:module: both are fetched on first use (decision 0215)", () => {
    // Without the loader hook, which itself imports node:module; Node lists its own modules in process.moduleLoadList.
    const script = `const before = new Set(process.moduleLoadList); await import("@skillport/fs"); console.log(JSON.stringify(process.moduleLoadList.filter((m) => !before.has(m))));`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: repo, encoding: "utf8" });
    expect([run.status, run.stderr]).toEqual([0, ""]);
    const builtins = (JSON.parse(run.stdout) as string[]).filter((m) => m.startsWith("NativeModule ") && !m.includes("internal/"));
    expect(builtins.length).toBeGreaterThan(0); // the list is seen (os, at least)
    expect(builtins.filter((m) => m === "NativeModule crypto" || m === "NativeModule module")).toEqual([]);
  });

});

describe.each(builds)("start-up module graph of $build (decisions 0202, 0220)", ({ bin }) => {
  const loaded = (args: readonly string[]) => loadedBy(bin, args);
  const out = path.join(work, path.basename(bin, ".js"));
  mkdirSync(out, { recursive: true });

  it("the hook sees what a heavy command loads (the check below can fail)", () => {
    const run = loaded(["validate", "examples/skills/weather-brief", "--profile", "lenient"]);
    expect(run.code).toBe(0);
    expect(run.modules).toContain("packages/cli/dist/commands/validate.js");
    expect(beyond(run.modules, "core", CORE_LEAVES)).toContain("packages/core/dist/parse.js");
  });

  it("yaml loads only when a SKILL.md needs the full YAML parser (decision 0210), and the exit list sees it", () => {
    const skill = path.join(work, "flow-style");
    mkdirSync(skill, { recursive: true });
    writeFileSync(path.join(skill, "SKILL.md"), "---\nname: flow-style\ndescription: Reads a flow sequence.\nmetadata: {tags: [a, b]}\n---\n# Flow\n");
    const full = loaded(["validate", skill, "--profile", "lenient"]);
    expect(full.code).toBe(0);
    expect(fromNodeModules(full.modules, "yaml").length).toBeGreaterThan(10);
    const plain = path.join(work, "plain-style");
    mkdirSync(plain, { recursive: true });
    writeFileSync(path.join(plain, "SKILL.md"), '---\nname: plain-style\ndescription: "Reads \\"quoted\\" text: plain scalars."\nlicense: MIT\n---\n# Plain\n');
    const fast = loaded(["validate", plain, "--profile", "lenient"]);
    expect(fast.code).toBe(0);
    expect(fromNodeModules(fast.modules, "yaml")).toEqual([]);
  });

  it("exec loads the sandbox and the workspace, and no parser, provider, packer or yaml", () => {
    const run = loaded(["exec", "-w", work, "--sandbox", "process", "--json", "--", "true"]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(JSON.parse(run.stdout)).toMatchObject({ exitCode: 0, sandbox: "process" });
    expect(run.modules).toContain("packages/runtime/dist/workspace.js");
    expect(run.modules).toContain("packages/sandbox/dist/sandbox.js");
    expect(beyond(run.modules, "core", CORE_LEAVES)).toEqual([]);
    expect(beyond(run.modules, "fs", FS_FLOOR)).toEqual([]);
    expect(inPackage(run.modules, "pack")).toEqual(["packages/pack/dist/paths.js", "packages/pack/dist/version.js"]);
    expect(inPackage(run.modules, "runtime").filter((m) => /\/(index|scan|verify-version|lock|archive-file)\.js$/.test(m))).toEqual([]);
    expect(inPackage(run.modules, "cli").filter((m) => m.includes("/commands/") && !m.endsWith("/exec.js") && !m.endsWith("/index.js"))).toEqual([]);
    for (const heavy of ["yaml", "stemmer", "yauzl", "tar", "ignore"]) expect(fromNodeModules(run.modules, heavy), heavy).toEqual([]);
  });

  it("exec --help still describes every option", () => {
    const run = loaded(["exec", "--help"]);
    expect(run.code).toBe(0);
    for (const option of ["--workspace", "--sandbox", "--timeout", "--cwd", "--network", "--json"]) expect(run.stdout).toContain(option);
    expect(beyond(run.modules, "core", CORE_LEAVES)).toEqual([]);
  });

  it("pack loads the packer and the SKILL.md validator, and no barrel, provider, search or archive reader", () => {
    const run = loaded(["pack", "examples/package", "-o", path.join(out, "example.zip"), "--json"]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(JSON.parse(run.stdout)).toMatchObject({ versionId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(run.modules).toContain("packages/pack/dist/zip-writer.js");
    expect(run.modules).toContain("packages/core/dist/validate.js");
    expect(run.modules.filter((m) => BARRELS.includes(m) || PROVIDER_AND_SEARCH.test(m))).toEqual([]);
    expect(beyond(run.modules, "fs", FS_TREE)).toEqual([]);
    expect(inPackage(run.modules, "pack").filter((m) => /\/(unpack|inspect|skill-file|archive\/.*)\.js$/.test(m))).toEqual([]);
    for (const heavy of ["yaml", "stemmer", "yauzl", "tar"]) expect(fromNodeModules(run.modules, heavy), heavy).toEqual([]);
  });

  it("unpack loads the archive reader (our own central-directory reader, not yauzl), and no packer, validator, provider or yaml", () => {
    const archive = path.join(out, "example.zip");
    if (!existsSync(archive)) expect(loaded(["pack", "examples/package", "-o", archive]).code).toBe(0);
    const run = loaded(["unpack", archive, path.join(out, "unpacked"), "--json"]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.modules).toContain("packages/pack/dist/archive/zip.js");
    expect(beyond(run.modules, "core", CORE_LEAVES)).toEqual([]);
    expect(beyond(run.modules, "fs", FS_TREE)).toEqual([]);
    expect(inPackage(run.modules, "pack").filter((m) => /\/(index|pack|layout|walk|exclusions|zip-writer|read-files)\.js$/.test(m))).toEqual([]);
    // Decision 0211: the zip listing is read in place, so no zip library (yauzl, pend) loads either.
    for (const heavy of ["yaml", "stemmer", "ignore", "tar", "yauzl", "pend"]) expect(fromNodeModules(run.modules, heavy), heavy).toEqual([]);
    expect(run.modules.filter((m) => m.includes("node_modules/"))).toEqual(expect.arrayContaining([expect.stringContaining("node_modules/commander/")]));
    expect(run.modules.filter((m) => m.includes("node_modules/") && !/node_modules\/(commander|picocolors)\//.test(m))).toEqual([]);
  });
});
