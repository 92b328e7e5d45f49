// `plugin build` / `check` must not carry the builder's files into a plugin (issue 8, hole 6): the bundler refuses
// imports that resolve outside the plugin folder and its node_modules, and top-level code run for the description
// cannot read them either. Each case is an attack that succeeded before.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findBubblewrap } from "@skillport/sandbox";
import { buildPlugin } from "./build.js";
import { checkPlugin } from "./check.js";
import { PluginBuildError } from "./diagnostics.js";
import { packPlugin } from "./pack.js";
import { PluginHost } from "../host/index.js";
import { LOGO, toolSource, writeFiles } from "./__fixtures__/plugins.js";

const SECRET = "builder-secret-7f3a9c";
const TIMEOUT = 120_000;

let work: string;
let plugin: string;

beforeEach(async () => {
  // <work>/secret.json and <work>/secret.txt beside <work>/plugin/, as a builder's home or CI checkout has them.
  work = await mkdtemp(join(tmpdir(), "skillport-confine-"));
  await chmod(work, 0o755);
  plugin = join(work, "plugin");
  await writeFiles(work, {
    "secret.json": JSON.stringify({ token: SECRET }),
    "secret.txt": SECRET,
    "outside/secret.json": JSON.stringify({ token: SECRET }),
  });
  await mkdir(plugin);
  await writeFiles(plugin, { "logo.svg": LOGO });
});
afterEach(() => rm(work, { recursive: true, force: true }));

/** A tool that puts `expression` (evaluated at top level) into its manifest description. */
const leakingTool = (imports: string, expression: string) =>
  toolSource({ imports: `${imports}\nconst leaked = String(${expression});` }).replace(
    "description: { en: 'Probe tool'",
    "description: { en: 'Probe tool ' + leaked",
  );

async function buildFailure(): Promise<PluginBuildError> {
  const error = await buildPlugin({ entry: plugin, output: join(plugin, "dist") }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PluginBuildError);
  return error as PluginBuildError;
}

/** No file of `<dir>/dist` holds the secret (only dist/ is read: a plugin may hold a `node_modules -> /`). */
async function expectNothingLeaked(dir = plugin, secret = SECRET): Promise<void> {
  const names = await readdir(join(dir, "dist"), { recursive: true }).catch(() => []);
  for (const name of names) {
    const text = await readFile(join(dir, "dist", name), "utf8").catch(() => "");
    expect(text).not.toContain(secret);
  }
}

describe("the bundler refuses imports from outside the plugin", () => {
  const cases: Array<[string, string, () => Promise<void>]> = [
    ["a ../ path", `import s from "../secret.json";`, async () => {}],
    ["an absolute path", `import s from "@ABS@";`, async () => {}],
    [
      "a link out of the folder",
      `import s from "./data/secret.json";`,
      () => symlink(join(work, "outside"), join(plugin, "data")),
    ],
    [
      "a link in node_modules",
      `import s from "evil/secret.json";`,
      async () => {
        await mkdir(join(plugin, "node_modules"));
        await symlink(join(work, "outside"), join(plugin, "node_modules", "evil"));
      },
    ],
  ];

  it.each(cases)(
    "%s: build fails naming the import and file, and writes nothing",
    async (_name, statement, prepare) => {
      await prepare();
      const imports = statement.replace("@ABS@", join(work, "secret.json"));
      await writeFiles(plugin, { "index.ts": leakingTool(imports, "s.token") });
      const error = await buildFailure();
      const text = error.diagnostics.map((d) => `${d.file}:${d.line} ${d.message}`).join("\n");
      expect(error.diagnostics[0]).toMatchObject({ code: "PLUGIN_BUNDLE_FAILED", file: "index.ts", line: 3 });
      expect(text).toContain(`import "${imports.match(/"(.*)"/)?.[1]}" in index.ts resolves to`);
      expect(text).toMatch(/outside the plugin folder and its node_modules/);
      expect(text).toContain("--allow-outside-imports");
      expect(text).not.toContain(SECRET);
      await expectNothingLeaked();
    },
    TIMEOUT,
  );

  it(
    "a glob-style dynamic import (which skips esbuild's resolve hooks): build fails and writes nothing",
    async () => {
      await writeFiles(plugin, {
        "index.ts": leakingTool(
          "const name = String(Date.now() > 0 ? 'secret' : 'x');\nconst loaded = require(`../${name}.json`);",
          "loaded.token",
        ),
      });
      const error = await buildFailure();
      const text = error.diagnostics.map((d) => d.message).join("\n");
      expect(text).toContain(
        "../secret.json is outside the plugin folder and its node_modules (reached through an import pattern)",
      );
      expect(text).not.toContain(SECRET);
      await expectNothingLeaked();
    },
    TIMEOUT,
  );

  it(
    "check reports the same error",
    async () => {
      await writeFiles(plugin, { "index.ts": leakingTool(`import s from "../secret.json";`, "s.token") });
      const result = await checkPlugin({ entry: plugin, output: join(plugin, "dist") });
      expect(result.ok).toBe(false);
      expect(result.diagnostics.map((d) => d.message).join("\n")).toMatch(
        /import "\.\.\/secret\.json" in index\.ts resolves to \.\.\/secret\.json, outside/,
      );
    },
    TIMEOUT,
  );

  it(
    "bundles the plugin's own files and its dependencies, in its node_modules or hoisted above it",
    async () => {
      await writeFiles(plugin, {
        "lib/own.json": JSON.stringify({ word: "own" }),
        "node_modules/dep/package.json": JSON.stringify({ name: "dep", version: "1.0.0", main: "index.js" }),
        "node_modules/dep/index.js": "module.exports = 'dep';\n",
        "index.ts": leakingTool(
          `import own from "./lib/own.json";\nimport dep from "dep";\nimport hoisted from "hoisted";`,
          "own.word + dep + hoisted",
        ),
      });
      await writeFiles(work, {
        "node_modules/hoisted/package.json": JSON.stringify({ name: "hoisted", version: "1.0.0", main: "index.js" }),
        "node_modules/hoisted/index.js": "module.exports = 'hoisted';\n",
      });
      const result = await buildPlugin({ entry: plugin, output: join(plugin, "dist") });
      expect(result.manifest.description.en).toBe("Probe tool owndephoisted");
    },
    TIMEOUT,
  );

  it(
    "allowOutsideImports bundles an outside file on purpose",
    async () => {
      await writeFiles(plugin, { "index.ts": leakingTool(`import shared from "../secret.json";`, "shared.token") });
      const result = await buildPlugin({ entry: plugin, output: join(plugin, "dist"), allowOutsideImports: true });
      expect(result.manifest.description.en).toBe(`Probe tool ${SECRET}`);
    },
    TIMEOUT,
  );
});

describe("top-level code run for the description sees only the plugin", () => {
  it(
    "cannot read a file beside the plugin into the manifest",
    async () => {
      const path = JSON.stringify(join(work, "secret.txt"));
      await writeFiles(plugin, {
        "index.ts": leakingTool(
          `import { readFileSync } from "node:fs";\nlet read = "refused";\ntry { read = readFileSync(${path}, "utf8"); } catch {}`,
          "read",
        ),
      });
      const result = await buildPlugin({ entry: plugin, output: join(plugin, "dist") });
      expect(result.manifest.description.en).toBe("Probe tool refused");
      await expectNothingLeaked();
    },
    TIMEOUT,
  );

  it(
    "cannot read a file beside the plugin into a build error",
    async () => {
      const path = JSON.stringify(join(work, "secret.txt"));
      await writeFiles(plugin, {
        "index.ts": leakingTool(
          `import { readFileSync } from "node:fs";\nconst read = readFileSync(${path}, "utf8");\nthrow new Error("got " + read);`,
          "read",
        ),
      });
      const error = await buildFailure();
      expect(JSON.stringify(error.diagnostics)).not.toContain(SECRET);
      expect(error.diagnostics.map((d) => d.code)).toContain("PLUGIN_LOAD_FAILED");
    },
    TIMEOUT,
  );
});

describe("top-level code cannot follow a link out of the plugin folder", () => {
  it.each(["auto", "off"] as const)(
    "loadIsolateNetwork %s",
    async (loadIsolateNetwork) => {
      await symlink(join(work, "outside"), join(plugin, "data"));
      // The bundle runs from a staging folder inside the plugin folder: its parent is the plugin folder.
      await writeFiles(plugin, {
        "index.ts": leakingTool(
          `import { readFileSync } from "node:fs";\nlet read = "refused";\ntry { read = readFileSync(new URL("../data/secret.json", import.meta.url), "utf8"); } catch {}`,
          "read",
        ),
      });
      if (loadIsolateNetwork === "auto" && (await findBubblewrap()) !== undefined) {
        // Inside bubblewrap the link's target is not mounted: the read fails.
        const result = await buildPlugin({ entry: plugin, output: join(plugin, "dist"), loadIsolateNetwork });
        expect(result.manifest.description.en).toBe("Probe tool refused");
      } else {
        // Node's permission model alone would follow the link: the loader refuses to run beside it.
        const error = await buildPlugin({ entry: plugin, output: join(plugin, "dist"), loadIsolateNetwork }).then(
          () => undefined,
          (e: unknown) => e as PluginBuildError,
        );
        expect(error).toBeInstanceOf(PluginBuildError);
        expect(error?.diagnostics).toMatchObject([{ code: "PLUGIN_LOAD_FAILED", file: "index.ts" }]);
        expect(error?.diagnostics[0]?.message).toMatch(
          /^cannot load the bundle without bubblewrap: \.\/data is a link leading outside the plugin/,
        );
        expect(JSON.stringify(error?.diagnostics)).not.toContain(SECRET);
        expect(JSON.stringify(error?.diagnostics)).not.toContain(work);
      }
    },
    TIMEOUT,
  );

  it(
    "a link that stays inside the plugin is fine without bubblewrap",
    async () => {
      await writeFiles(plugin, { "lib/data.json": "{}", "index.ts": leakingTool("", "'ok'") });
      await symlink(join(plugin, "lib"), join(plugin, "lib-link"));
      const result = await buildPlugin({ entry: plugin, output: join(plugin, "dist"), loadIsolateNetwork: "off" });
      expect(result.manifest.description.en).toBe("Probe tool ok");
    },
    TIMEOUT,
  );
});

describe("files the build copies come from the plugin", () => {
  it(
    "a README.md that links out of the plugin is refused, not copied into dist/",
    async () => {
      await writeFiles(plugin, { "index.ts": leakingTool("", "'ok'") });
      await symlink(join(work, "secret.txt"), join(plugin, "README.md"));
      const error = await buildFailure();
      expect(error.diagnostics).toMatchObject([{ code: "PLUGIN_README_NOT_FILE", file: "README.md" }]);
      expect(JSON.stringify(error.diagnostics)).not.toContain(SECRET);
      await expectNothingLeaked();
    },
    TIMEOUT,
  );

  it(
    "a README.md that links to a file inside the plugin is copied",
    async () => {
      await writeFiles(plugin, { "index.ts": leakingTool("", "'ok'"), "docs/readme.md": "# Probe\n" });
      await symlink(join(plugin, "docs", "readme.md"), join(plugin, "README.md"));
      const result = await buildPlugin({ entry: plugin, output: join(plugin, "dist") });
      expect(result.files).toContain("README.md");
      expect(await readFile(join(plugin, "dist", "README.md"), "utf8")).toBe("# Probe\n");
    },
    TIMEOUT,
  );
});

// Issue 19, hole 2: a `node_modules` that is a link (shipped with the plugin, planted above it, or reached through a
// linked ancestor) made its target — `/` — a dependency folder, and any file under it was inlined with
// `import s from "…" with { type: "text" }`. Only real node_modules folders on the plugin's real path count now.
describe("a node_modules link does not widen what the bundler may read", () => {
  /** First line of /etc/shadow when this run can read it (root, as CI runs): the file the review inlined. */
  const shadowLine = (() => {
    try {
      return readFileSync("/etc/shadow", "utf8").split("\n")[0] ?? "";
    } catch {
      return "";
    }
  })();
  /** `<work>/secret.txt` named from `/`, as an import through a `node_modules -> /` link spells it. */
  const secretFromRoot = () => `${work.slice(1)}/secret.txt`;

  type Case = {
    name: string;
    specifier: () => string;
    secret: () => string;
    entry?: () => string;
    prepare: () => Promise<void>;
  };
  const cases: Case[] = [
    {
      name: "the plugin ships node_modules -> /",
      specifier: secretFromRoot,
      secret: () => SECRET,
      prepare: () => symlink("/", join(plugin, "node_modules")),
    },
    {
      name: "a node_modules -> / planted in the folder above the plugin",
      specifier: secretFromRoot,
      secret: () => SECRET,
      prepare: () => symlink("/", join(work, "node_modules")),
    },
    {
      name: "an ancestor reached through a link, with node_modules -> / beside it",
      specifier: () => `${join(work, "x", "node_modules")}${work}/secret.txt`,
      secret: () => SECRET,
      // <work>/via/plugin is the plugin at <work>/plugin seen through <work>/via/ -> <work>/; <work>/via's own
      // parent chain is not the plugin's.
      entry: () => join(work, "x", "via", "plugin"),
      prepare: async () => {
        await mkdir(join(work, "x"));
        await symlink(work, join(work, "x", "via"));
        await symlink("/", join(work, "x", "node_modules"));
      },
    },
    {
      name: "an ancestor reached through a link, with a real node_modules beside it holding a builder's file",
      specifier: () => join(work, "x", "node_modules", "secret.txt"),
      secret: () => SECRET,
      entry: () => join(work, "x", "via", "plugin"),
      prepare: async () => {
        await writeFiles(work, { "x/node_modules/secret.txt": SECRET });
        await symlink(work, join(work, "x", "via"));
      },
    },
  ];
  if (shadowLine !== "") {
    cases.push({
      name: "the plugin ships node_modules -> / and imports etc/shadow",
      specifier: () => "etc/shadow",
      secret: () => shadowLine,
      prepare: () => symlink("/", join(plugin, "node_modules")),
    });
  }

  it.each(cases)(
    "$name: build and pack fail naming the import; nothing reaches dist/, the manifest or a .pkg",
    async (c) => {
      await c.prepare();
      const entry = c.entry?.() ?? plugin;
      await writeFiles(plugin, {
        "index.ts": leakingTool(`import s from ${JSON.stringify(c.specifier())} with { type: "text" };`, "s"),
      });
      const error = await buildPlugin({ entry, output: join(entry, "dist") }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PluginBuildError);
      const diagnostics = (error as PluginBuildError).diagnostics;
      expect(diagnostics[0]).toMatchObject({ code: "PLUGIN_BUNDLE_FAILED", file: "index.ts", line: 3 });
      expect(diagnostics[0]?.message).toMatch(
        new RegExp(
          `^import "${c.specifier().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}" in index.ts resolves to .*, outside the plugin folder and its node_modules`,
        ),
      );
      expect(JSON.stringify(diagnostics)).not.toContain(c.secret());
      await expect(packPlugin({ entry, dist: join(entry, "dist"), output: join(entry, "out") })).rejects.toBeInstanceOf(
        PluginBuildError,
      );
      expect(await readdir(plugin)).not.toContain("out");
      await expectNothingLeaked(plugin, c.secret());
    },
    TIMEOUT,
  );

  /** A CommonJS package `name` whose value is `value`, as files under `dir`. */
  const pkg = (dir: string, name: string, value: string) => ({
    [`${dir}/package.json`]: JSON.stringify({ name, version: "1.0.0", main: "index.js" }),
    [`${dir}/index.js`]: `module.exports = ${JSON.stringify(value)};\n`,
  });

  it(
    "pnpm's layout builds: package links into node_modules/.pnpm, in the plugin and in a hoisted store above it",
    async () => {
      await writeFiles(plugin, pkg("node_modules/.pnpm/own@1.0.0/node_modules/own", "own", "own"));
      await symlink(".pnpm/own@1.0.0/node_modules/own", join(plugin, "node_modules", "own"));
      await writeFiles(work, pkg("node_modules/.pnpm/store@1.0.0/node_modules/store", "store", "store"));
      await symlink("../../node_modules/.pnpm/store@1.0.0/node_modules/store", join(plugin, "node_modules", "store"));
      await writeFiles(plugin, {
        "index.ts": leakingTool(`import own from "own";\nimport store from "store";`, "own + store"),
      });
      const result = await buildPlugin({ entry: plugin, output: join(plugin, "dist") });
      expect(result.manifest.description.en).toBe("Probe tool ownstore");
    },
    TIMEOUT,
  );

  it(
    "a plugin addressed through a linked ancestor still gets the real node_modules above its real folder",
    async () => {
      await writeFiles(work, pkg("node_modules/hoisted", "hoisted", "hoisted"));
      await mkdir(join(work, "x"));
      await symlink(work, join(work, "x", "via"));
      const entry = join(work, "x", "via", "plugin");
      await writeFiles(plugin, { "index.ts": leakingTool(`import hoisted from "hoisted";`, "hoisted") });
      const result = await buildPlugin({ entry, output: join(entry, "dist") }).catch((e: unknown) => {
        throw new Error(JSON.stringify((e as PluginBuildError).diagnostics));
      });
      expect(result.manifest.description.en).toBe("Probe tool hoisted");
    },
    TIMEOUT,
  );
});

// Issue 20, item 1: on a flat install, `debug` does `try { require("supports-color") } catch {}` and `pg` requires
// `pg-native` the same way, with neither installed. esbuild alone leaves such a require to run time (a warning),
// where the package's own catch handles it; the confinement hook returned the failed resolve's errors itself and
// turned the warning into a build error (16 of 67 official tools). Only what resolves is judged now.
describe("an import that resolves nowhere keeps esbuild's behaviour", () => {
  const optionalUser = {
    "package.json": JSON.stringify({ name: "uses-optional", version: "1.0.0", main: "index.js" }),
    "index.js": [
      "let color = 'no color';",
      "try { color = require('missing-optional'); } catch {}",
      "module.exports = () => color;",
      "",
    ].join("\n"),
  };

  it(
    "a dependency hoisted above the plugin whose optional require is missing builds, and runs into its own catch",
    async () => {
      await writeFiles(join(work, "node_modules", "uses-optional"), optionalUser);
      await writeFiles(plugin, {
        "index.ts": toolSource({
          imports: `import which from "uses-optional";`,
          body: `ctx.streamResponse({ type: "answer", content: which() });`,
        }),
      });
      await buildPlugin({ entry: plugin, output: join(plugin, "dist") });
      const host = await PluginHost.load(join(plugin, "dist"), { maxHeapMb: 64 });
      try {
        const { output, streams } = await host.invoke("tool", { q: "x" });
        expect(output).toEqual({ ok: true });
        expect(streams).toEqual([{ type: "answer", content: "no color" }]);
      } finally {
        await host.close();
      }
    },
    TIMEOUT,
  );

  it(
    "an import outside try that resolves nowhere is still esbuild's error, at its line",
    async () => {
      await writeFiles(plugin, {
        "index.ts": toolSource({ imports: `import gone from "missing-entirely";\nconsole.log(gone);` }),
      });
      const error = await buildFailure();
      expect(error.diagnostics).toMatchObject([{ code: "PLUGIN_BUNDLE_FAILED", file: "index.ts", line: 3 }]);
      expect(error.diagnostics[0]?.message).toMatch(/^Could not resolve "missing-entirely"/);
    },
    TIMEOUT,
  );
});

// Found running the official tools (dbops' clickhouse child): the hook handed esbuild its own resolve result, which
// drops what esbuild knows beyond the path — the `type` of the importer's package. A `type: module` plugin's default
// import of a CommonJS package compiled from TypeScript (`__esModule` set, no `default`) then read
// `exports.default` (undefined) instead of `module.exports`, as Node and esbuild alone give.
describe("the hook does not change how what it allows is bundled", () => {
  it(
    "a type: module plugin's default import of an __esModule CommonJS package is module.exports, as in Node",
    async () => {
      await writeFiles(plugin, {
        "package.json": JSON.stringify({ name: "probe", version: "1.0.0", type: "module" }),
        "node_modules/ts-compiled/package.json": JSON.stringify({
          name: "ts-compiled",
          version: "1.0.0",
          main: "index.js",
        }),
        "node_modules/ts-compiled/index.js":
          'Object.defineProperty(exports, "__esModule", { value: true });\nexports.createClient = () => "client";\n',
        "index.ts": leakingTool(`import compiled from "ts-compiled";`, "compiled.createClient()"),
      });
      const result = await buildPlugin({ entry: plugin, output: join(plugin, "dist") });
      expect(result.manifest.description.en).toBe("Probe tool client");
    },
    TIMEOUT,
  );
});
