// The start-up rule (decisions 0202, 0311), checked on what the `skillport` bin runs: the CLI bundle (dist/cli.js and
// its chunks, decision 0220). Start-up speed is bought once, there: every package has one door and "sideEffects":
// false, and esbuild keeps of each package only what a command reaches. So this test counts what ends up in the
// chunks a command loads — the modules with bytes in them, read from the bundle's metafile — not which import path
// was written: a later import that brings core's parser, the skill provider or `yaml` into `exec`, `unpack` or
// `--version` fails here, whatever the timing of the day.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { bundleMeta, modulesIn, modulesOf, staticClosure, type Metafile } from "./__fixtures__/bundle-modules.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dist = path.join(repo, "packages/cli/dist");

// Runs in the loader thread: every module the process loads (ESM, and CJS reached by an import) goes to stderr.
const HOOK = `export async function load(url, context, next) { if (url.startsWith("file:")) process._rawDebug("loaded-module " + url); return next(url, context); }`;
// CommonJS loaded on demand by `require` (core loads `yaml` so, decision 0210) never meets the hook: at exit, the
// CommonJS cache lists it.
const CJS_AT_EXIT = `process.on("exit", () => { for (const file of Object.keys(createRequire(process.execPath).cache)) process._rawDebug("loaded-module " + pathToFileURL(file)); });`;
const REGISTER = `import { createRequire, register } from "node:module"; import { pathToFileURL } from "node:url"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)}); ${CJS_AT_EXIT}`;

/** The repository-relative paths of the modules a run of the built CLI loads, and its result. */
function loadedBy(bin: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const run = spawnSync(
    process.execPath,
    ["--import", `data:text/javascript,${encodeURIComponent(REGISTER)}`, bin, ...args],
    {
      cwd: options.cwd ?? repo,
      encoding: "utf8",
      // The hot commands' ES-module bundles: their one-file scripts (decision 0446) load no module a hook could see, and
      // are checked below by what V8 ran of them.
      env: { ...process.env, FORCE_COLOR: undefined, SKILLPORT_CODE_CACHE: "off", ...options.env },
    },
  );
  const files = [...run.stderr.matchAll(/^loaded-module (\S+)$/gm)].map((m) =>
    path.relative(repo, fileURLToPath(m[1]!)),
  );
  const modules = [...new Set(files.flatMap(modulesOf))];
  return {
    code: run.status,
    stdout: run.stdout,
    stderr: run.stderr.replace(/^loaded-module .*\n/gm, ""),
    files,
    modules,
  };
}

const inPackage = (modules: readonly string[], pkg: string) =>
  modules.filter((m) => m.startsWith(`packages/${pkg}/`)).sort();
const fromNodeModules = (modules: readonly string[], name: string) =>
  modules.filter((m) => m.includes(`node_modules/${name}/`));

// Core's SKILL.md parser (and the YAML layer under it), the skill provider and discovery, the registry, catalog and search.
const PARSER = /^packages\/core\/dist\/(parse|lint|validate|serialize|format\/.*)\.js$|^skillport:yaml-library$/;
const PROVIDER_AND_SEARCH =
  /^packages\/(core\/dist\/(registry|memory|catalog\/.*|search\/.*)|fs\/dist\/skills\/.*)\.js$/;

/**
 * Modules with bytes in two or more outputs of one bundle: a second copy (the fs pre-bundle once put the floor in
 * twice). Each hot command's bundle (dist/cli-install*.js, dist/cli-add*.js; decisions 0358, 0444) and one-file script
 * (dist/cli-<command>.cjs, decision 0446) holds its own copies by design: no code of one calls into another, so each
 * is checked on its own.
 */
function copies(metafile: Metafile): string[] {
  const seen = new Map<string, number>();
  for (const output of Object.keys(metafile.outputs)) {
    // A hot command's one-file script (.cjs) is a bundle of its own too: a process runs it or the chunked bundle.
    const bundle = `${/(?:^|\/)cli-(?!chunk-)([a-z]+)[-.]/.exec(output)?.[1] ?? ""}${output.endsWith(".cjs") ? ".cjs" : ""}`;
    for (const input of modulesIn(metafile, output) ?? [])
      seen.set(`${bundle}:${input}`, (seen.get(`${bundle}:${input}`) ?? 0) + 1);
  }
  return [...seen].filter(([, count]) => count > 1).map(([input]) => input.slice(input.indexOf(":") + 1));
}

const work = mkdtempSync(path.join(os.tmpdir(), "skillport-graph-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Runner<R> = (args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }) => R;

/**
 * `add` of the examples into a fresh project, then two `install --frozen` of its lock: the first scans (the check can
 * fail) and keeps the reports, the second takes them and loads (or evaluates) no scanner (decision 0429). Returns the second.
 */
function addThenRestoreTwice<R extends { code: number | null; stderr: string; modules: string[] }>(
  name: string,
  run: Runner<R>,
): R {
  const project = path.join(work, name);
  mkdirSync(path.join(project, ".claude"), { recursive: true });
  const options = { cwd: project, env: { SKILLPORT_CACHE_DIR: path.join(work, `${name}-cache`) } };
  const source = path.join(repo, "examples/skills");
  const added = run(["add", source, "--skill", "*", "--yes", "--agent", "claude-code"], options);
  expect(added.code, added.stderr).toBe(0);
  const restore = () => {
    rmSync(path.join(project, ".agents"), { recursive: true, force: true });
    const restored = run(["install", "--frozen"], options);
    expect([restored.code, restored.stderr]).toEqual([0, ""]);
    return restored;
  };
  expect(restore().modules).toContain("packages/audit/dist/rules.js");
  const again = restore();
  expect(
    again.modules.filter((m) => /^packages\/audit\/dist\/(audit|rules|decode|hidden|inventory)\.js$/.test(m)),
  ).toEqual([]);
  expect(again.modules).toContain("packages/install/dist/installer.js");
  return again;
}

describe("the skillport bin", () => {
  it("runs the bundle, not the separate modules (decision 0220)", () => {
    const run = loadedBy(path.join(repo, "packages/cli/bin/skillport.js"), ["exec", "--help"]);
    expect(run.code).toBe(0);
    expect(run.files).toContain("packages/cli/dist/cli.js");
    const code = run.files.filter((f) => f.startsWith("packages/") && f.endsWith(".js"));
    expect(code.filter((f) => !f.startsWith("packages/cli/dist/cli") && f !== "packages/cli/bin/skillport.js")).toEqual(
      [],
    );
    expect(run.modules).toContain("packages/cli/dist/commands/exec.js");
  });
});

describe("the CLI bundle (decision 0311)", () => {
  const meta = bundleMeta();
  const all = Object.keys(meta.outputs).flatMap((output) => modulesIn(meta, output) ?? []);

  it("holds one copy of the floor, and of every other module", () => {
    const floor = all.filter((m) => m.startsWith("packages/fs/dist/floor/"));
    for (const module of ["walk", "confine", "atomic", "errno", "open-confined", "dir-fd"])
      expect(floor).toContain(`packages/fs/dist/floor/${module}.js`);
    expect(copies(meta)).toEqual([]);
    expect(all.filter((m) => m.includes("index.bundle"))).toEqual([]);
  });

  it("the copy check can fail: a module with bytes in two outputs is found, a tree-shaken one is not", () => {
    const walk = "packages/fs/dist/floor/walk.js";
    const fake: Metafile = {
      outputs: {
        "a.js": { inputs: { [walk]: { bytesInOutput: 10 }, "x.js": { bytesInOutput: 0 } } },
        "b.js": { inputs: { [walk]: { bytesInOutput: 10 }, "x.js": { bytesInOutput: 5 } } },
      },
    };
    expect(copies(fake)).toEqual([walk]);
  });

  it("add reaches its clone with no skill reader, parser, audit or writer loaded (decision 0444)", () => {
    // What runs before the clone starts: the add bundle's static graph, then the remote source's chunk and its static
    // graph. What is needed once the copy is there loads during the clone's wait.
    const remote = Object.keys(meta.outputs).find(
      (o) =>
        o.startsWith("packages/cli/dist/cli-add-") &&
        (modulesIn(meta, o) ?? []).includes("packages/cli/dist/sources/remote.js"),
    );
    expect(remote).toBeDefined();
    const beforeClone = [
      ...staticClosure(meta, "packages/cli/dist/cli-add.js"),
      ...staticClosure(meta, remote ?? ""),
    ].flatMap((o) => modulesIn(meta, o) ?? []);
    expect(beforeClone).toContain("packages/remote/dist/git/run-git.js");
    expect(beforeClone).toContain("packages/cli/dist/commands/add.js");
    const late = beforeClone.filter(
      (m) =>
        PARSER.test(m) ||
        /^packages\/fs\/dist\/skills\//.test(m) ||
        m.startsWith("packages/audit/") ||
        /^packages\/install\/dist\/(collect|installer|lock|place|verify)\.js$/.test(m),
    );
    expect(late).toEqual([]);
  });
});

describe("start-up module graph of the bundle the bin runs (decisions 0202, 0220, 0311)", () => {
  const bin = path.join(dist, "cli.js");
  const loaded = (args: readonly string[]) => loadedBy(bin, args);
  const out = path.join(work, "cli");
  mkdirSync(out, { recursive: true });

  it("the hook sees what a heavy command loads (the check below can fail)", () => {
    const run = loaded(["validate", "examples/skills/weather-brief", "--profile", "lenient"]);
    expect(run.code).toBe(0);
    expect(run.modules).toContain("packages/cli/dist/commands/validate.js");
    expect(run.modules.filter((m) => PARSER.test(m))).toContain("packages/core/dist/parse.js");
  });

  it("yaml loads only when a SKILL.md needs the full YAML parser (decision 0210), and the exit list sees it", () => {
    const skill = path.join(work, "flow-style");
    mkdirSync(skill, { recursive: true });
    writeFileSync(
      path.join(skill, "SKILL.md"),
      "---\nname: flow-style\ndescription: Reads a flow sequence.\nmetadata: {tags: [a, b]}\n---\n# Flow\n",
    );
    const full = loaded(["validate", skill, "--profile", "lenient"]);
    expect(full.code).toBe(0);
    expect(fromNodeModules(full.modules, "yaml").length).toBeGreaterThan(10);
    const plain = path.join(work, "plain-style");
    mkdirSync(plain, { recursive: true });
    writeFileSync(
      path.join(plain, "SKILL.md"),
      '---\nname: plain-style\ndescription: "Reads \\"quoted\\" text: plain scalars."\nlicense: MIT\n---\n# Plain\n',
    );
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
    expect(run.modules.filter((m) => PARSER.test(m) || PROVIDER_AND_SEARCH.test(m))).toEqual([]);
    expect(inPackage(run.modules, "pack")).toEqual(["packages/pack/dist/paths.js", "packages/pack/dist/version.js"]);
    expect(
      inPackage(run.modules, "runtime").filter((m) => /\/(index|scan|verify-version|lock|archive-file)\.js$/.test(m)),
    ).toEqual([]);
    expect(
      inPackage(run.modules, "cli").filter(
        (m) => m.includes("/commands/") && !m.endsWith("/exec.js") && !m.endsWith("/index.js"),
      ),
    ).toEqual([]);
    for (const heavy of ["yaml", "stemmer", "yauzl", "tar", "ignore"])
      expect(fromNodeModules(run.modules, heavy), heavy).toEqual([]);
  });

  it("add --list loads no audit nor writer, and no registry, catalog or search (decision 0427)", () => {
    // `--list` installs nothing: no audit, no writer. An install loads them while its source is fetched.
    const listed = loaded(["add", "examples/skills", "--list"]);
    expect([listed.code, listed.stderr]).toEqual([0, ""]);
    expect(listed.modules).toContain("packages/fs/dist/skills/skill-source.js");
    expect(inPackage(listed.modules, "audit")).toEqual([]);
    expect(listed.modules.filter((m) => m.endsWith("/install/dist/installer.js"))).toEqual([]);
    expect(
      listed.modules.filter((m) => /^packages\/core\/dist\/(registry|catalog\/.*|search\/.*)\.js$/.test(m)),
    ).toEqual([]);
    expect(fromNodeModules(listed.modules, "stemmer")).toEqual([]);
  });

  it("install --frozen of bytes audited before loads no audit scanner (decision 0429)", () => {
    const again = addThenRestoreTwice("restore", (args, options) => loadedBy(bin, args, options));
    // Decision 0358: `install` runs from its own bundle, and no module is loaded twice (one bundle's copy only) but
    // the version string, which the entry prints for --version and the install bundle's program for --help.
    expect(again.files).toContain("packages/cli/dist/cli-install.js");
    const install = again.files.filter((f) => modulesOf(f).includes("packages/cli/dist/commands/install.js"));
    expect(install.every((f) => f.startsWith("packages/cli/dist/cli-install"))).toBe(true);
    const perFile = again.files.flatMap(modulesOf);
    expect(perFile.filter((m, i) => perFile.indexOf(m) !== i)).toEqual(["packages/cli/dist/version.js"]);
  });

  it("exec --help still describes every option", () => {
    const run = loaded(["exec", "--help"]);
    expect(run.code).toBe(0);
    for (const option of ["--workspace", "--sandbox", "--timeout", "--cwd", "--network", "--json"])
      expect(run.stdout).toContain(option);
    expect(run.modules.filter((m) => PARSER.test(m) || PROVIDER_AND_SEARCH.test(m))).toEqual([]);
  });

  it("--version loads the entry, and nothing of the parser, provider, packer, runtime or sandbox", () => {
    const run = loaded(["--version"]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(run.modules).toContain("packages/cli/dist/main.js");
    expect(run.modules.filter((m) => PARSER.test(m) || PROVIDER_AND_SEARCH.test(m))).toEqual([]);
    for (const pkg of ["pack", "runtime", "sandbox", "agent", "remote", "sql"])
      expect(inPackage(run.modules, pkg), pkg).toEqual([]);
    expect(
      run.modules.filter((m) => m.includes("node_modules/") && !/node_modules\/(commander|picocolors)\//.test(m)),
    ).toEqual([]);
  });

  it("pack loads the packer and the SKILL.md validator, and no barrel, provider, search or archive reader", () => {
    const run = loaded(["pack", "examples/package", "-o", path.join(out, "example.zip"), "--json"]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(JSON.parse(run.stdout)).toMatchObject({ versionId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(run.modules).toContain("packages/pack/dist/zip-writer.js");
    expect(run.modules).toContain("packages/core/dist/validate.js");
    // Packing validates each SKILL.md, so the parser is in; the provider, registry, catalog and search are not.
    expect(run.modules.filter((m) => PROVIDER_AND_SEARCH.test(m))).toEqual([]);
    expect(
      inPackage(run.modules, "pack").filter((m) => /\/(unpack|inspect|skill-file|archive\/.*)\.js$/.test(m)),
    ).toEqual([]);
    for (const heavy of ["yaml", "stemmer", "yauzl", "tar"])
      expect(fromNodeModules(run.modules, heavy), heavy).toEqual([]);
  });

  it("unpack loads the archive reader (our own central-directory reader, not yauzl), and no packer, validator, provider or yaml", () => {
    const archive = path.join(out, "example.zip");
    if (!existsSync(archive)) expect(loaded(["pack", "examples/package", "-o", archive]).code).toBe(0);
    const run = loaded(["unpack", archive, path.join(out, "unpacked"), "--json"]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.modules).toContain("packages/pack/dist/archive/zip.js");
    expect(run.modules.filter((m) => PARSER.test(m) || PROVIDER_AND_SEARCH.test(m))).toEqual([]);
    expect(
      inPackage(run.modules, "pack").filter((m) =>
        /\/(index|pack|layout|walk|exclusions|zip-writer|read-files)\.js$/.test(m),
      ),
    ).toEqual([]);
    // Decision 0211: the zip listing is read in place, so no zip library (yauzl, pend) loads either.
    for (const heavy of ["yaml", "stemmer", "ignore", "tar", "yauzl", "pend"])
      expect(fromNodeModules(run.modules, heavy), heavy).toEqual([]);
    expect(run.modules.filter((m) => m.includes("node_modules/"))).toEqual(
      expect.arrayContaining([expect.stringContaining("node_modules/commander/")]),
    );
    expect(
      run.modules.filter((m) => m.includes("node_modules/") && !/node_modules\/(commander|picocolors)\//.test(m)),
    ).toEqual([]);
  });
});

describe("the hot commands' one-file scripts, run from a code cache (decision 0446)", () => {
  const bin = path.join(dist, "cli.js");

  /**
   * The modules a run of a hot command's script evaluated: the script's modules with no lazy wrapper (evaluated as it
   * loads), and each wrapped one whose wrapper V8 reports as called (NODE_V8_COVERAGE: esbuild names each wrapper
   * function after its module).
   */
  function evaluatedBy(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
    const coverage = mkdtempSync(path.join(work, "coverage-"));
    const run = spawnSync(process.execPath, [bin, ...args], {
      cwd: options.cwd,
      encoding: "utf8",
      env: { ...process.env, FORCE_COLOR: undefined, ...options.env, NODE_V8_COVERAGE: coverage },
    });
    const script = path.join(dist, `cli-${args[0]}.cjs`);
    const text = readFileSync(script, "utf8");
    const wrapped = new Set([...text.matchAll(/__(?:esm|commonJS)\(\{"([^"]+)"\(/g)].map((m) => m[1]!));
    const called = new Set<string>();
    for (const file of readdirSync(coverage)) {
      const report = JSON.parse(readFileSync(path.join(coverage, file), "utf8")) as {
        result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
      };
      for (const entry of report.result.filter((r) => r.url === script || r.url === pathToFileURL(script).href))
        for (const fn of entry.functions)
          if (wrapped.has(fn.functionName) && (fn.ranges[0]?.count ?? 0) > 0) called.add(fn.functionName);
    }
    const inScript = modulesIn(bundleMeta(), `packages/cli/dist/cli-${args[0]}.cjs`) ?? [];
    return {
      code: run.status,
      stderr: run.stderr,
      ran: called.size > 0,
      modules: inScript.filter((m) => !wrapped.has(m) || called.has(m)),
    };
  }

  it("add --list evaluates no audit nor writer (the check can fail: an install evaluates them)", () => {
    const options = { cwd: work, env: { SKILLPORT_CACHE_DIR: path.join(work, "script-cache") } };
    const listed = evaluatedBy(["add", path.join(repo, "examples/skills"), "--list"], options);
    expect([listed.code, listed.stderr, listed.ran]).toEqual([0, "", true]);
    expect(listed.modules).toContain("packages/fs/dist/skills/skill-source.js");
    expect(inPackage(listed.modules, "audit")).toEqual([]);
    expect(listed.modules.filter((m) => m.endsWith("/install/dist/installer.js"))).toEqual([]);
    const project = path.join(work, "script-add");
    mkdirSync(path.join(project, ".claude"), { recursive: true });
    const added = evaluatedBy(
      ["add", path.join(repo, "examples/skills"), "--skill", "*", "--yes", "--agent", "claude-code"],
      { ...options, cwd: project },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.modules).toContain("packages/audit/dist/rules.js");
    expect(added.modules).toContain("packages/install/dist/installer.js");
  });

  it("install --frozen of bytes audited before evaluates no audit scanner", () => {
    expect(addThenRestoreTwice("script-restore", evaluatedBy).ran).toBe(true);
  });
});
