// The release check (issue 9): every workspace package packs into a tarball that installs OUTSIDE the monorepo, a
// strict `nodenext` TypeScript program compiles and runs against the installed tarballs (every ```ts example in the
// packages' READMEs included), and the CLI's bin works from its tarball. Then the light installs (issue 21, decision
// 0295): core alone and the CLI alone, each in an empty project, within their size budgets, with no native code, and
// every feature whose optional peer is absent names its `npm install` line. Slow (npm pack + npm install).
import { execFile, execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "../../agent/test/scripted-server.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const workspaces = (JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")) as { workspaces: string[] })
  .workspaces;
const manifests = workspaces.map((ws) => ({
  dir: path.join(repo, ws),
  json: JSON.parse(readFileSync(path.join(repo, ws, "package.json"), "utf8")) as PackageJson,
}));
const work = mkdtempSync(path.join(os.tmpdir(), "skillport-release-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface PackageJson {
  name: string;
  version: string;
  license?: string;
  engines?: { node?: string };
  types?: string;
  exports?: Record<string, { types?: string; default?: string }>;
  files?: string[];
  publishConfig?: { access?: string };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  bin?: Record<string, string>;
}

const npm = (args: string[], cwd: string) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

// Every workspace packed once, shared by the tests below.
let packed: { dir: string; files: string[] } | undefined;
function packTarballs(): { dir: string; files: string[] } {
  if (packed) return packed;
  const dir = path.join(work, "tarballs");
  mkdirSync(dir);
  npm(["pack", "--workspaces", "--pack-destination", dir], repo);
  packed = { dir, files: readdirSync(dir).filter((f) => f.endsWith(".tgz")) };
  return packed;
}

function emptyProject(name: string): string {
  const project = path.join(work, name);
  mkdirSync(project);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  return project;
}

/** Bytes of every file under `dir` (what npm calls the unpacked size: the same on every file system). */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += lstatSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** What would have compiled or loaded native code: `.node` binaries, node-gyp projects, install scripts. */
function nativeCode(nodeModules: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(nodeModules, { withFileTypes: true, recursive: true })) {
    const file = path.relative(nodeModules, path.join(entry.parentPath, entry.name));
    if (entry.isFile() && (entry.name.endsWith(".node") || entry.name === "binding.gyp")) found.push(file);
    if (entry.isFile() && entry.name === "package.json") {
      const scripts =
        (JSON.parse(readFileSync(path.join(nodeModules, file), "utf8")) as { scripts?: Record<string, string> })
          .scripts ?? {};
      for (const hook of ["preinstall", "install", "postinstall"]) if (scripts[hook]) found.push(`${file}: ${hook}`);
    }
  }
  return found;
}

/** The tarballs a package needs: itself and its @skillport dependencies, transitively. */
function tarballsFor(name: string): string[] {
  const names = new Set<string>();
  const visit = (pkg: string) => {
    if (names.has(pkg)) return;
    names.add(pkg);
    const manifest = manifests.find((m) => m.json.name === pkg)?.json;
    for (const dep of Object.keys(manifest?.dependencies ?? {})) if (dep.startsWith("@skillport/")) visit(dep);
  };
  visit(name);
  const { dir, files } = packTarballs();
  return [...names].map((pkg) => {
    const file = files.find(
      (f) =>
        f ===
        `${pkg.replace(/^@/, "").replace("/", "-")}-${manifests.find((m) => m.json.name === pkg)?.json.version}.tgz`,
    );
    if (!file) throw new Error(`no tarball for ${pkg}`);
    return path.join(dir, file);
  });
}

describe("publish-ready packages", () => {
  it.each(manifests.map((m) => [m.json.name, m] as const))(
    "%s declares what a published package needs",
    (_name, { dir, json }) => {
      expect(json.license).toBe("Apache-2.0");
      expect(json.engines?.node).toBe(">=20.19");
      expect(json.files).toContain("dist");
      expect(json.exports?.["."]?.types).toBe("./dist/index.d.ts");
      expect(json.types).toBe("./dist/index.d.ts");
      if (json.name.startsWith("@")) expect(json.publishConfig?.access).toBe("public");
      for (const [dep, range] of Object.entries(json.dependencies ?? {})) {
        if (dep.startsWith("@skillport/") || dep === "skillport")
          expect(range, `${json.name} → ${dep}`).toMatch(/^\^\d+\.\d+\.\d+$/);
      }
      expect(existsSync(path.join(dir, "README.md")), `${json.name} has a README.md`).toBe(true);
    },
  );

  it(
    "every tarball installs into a fresh project; a strict nodenext program and the README examples compile and run; the bin works",
    { timeout: 600_000 },
    () => {
      const { dir: tarballs, files } = packTarballs();
      expect(files).toHaveLength(manifests.length);
      for (const file of files) {
        const listing = execFileSync("tar", ["-tzf", path.join(tarballs, file)], { encoding: "utf8" }).split("\n");
        expect(listing, file).toContain("package/LICENSE");
        expect(listing, file).toContain("package/README.md");
        expect(
          listing.some((entry) => entry.endsWith(".test.js")),
          file,
        ).toBe(false);
      }

      const project = emptyProject("release-check");
      // Prefer the npm cache `npm ci` filled; the registry is only asked for what is missing.
      npm(["install", "--prefer-offline", ...files.map((f) => path.join(tarballs, f))], project);

      // Every ```ts block of every package README becomes its own module; main.ts exercises the core path end to end.
      const examples: string[] = [];
      for (const { dir, json } of manifests) {
        const readme = readFileSync(path.join(dir, "README.md"), "utf8");
        [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].forEach((m, i) => {
          const name = `readme-${json.name.replace(/^@skillport\//, "")}-${i}.ts`;
          writeFileSync(path.join(project, name), `${m[1]}\nexport {};\n`);
          examples.push(name);
        });
      }
      expect(examples.length).toBeGreaterThanOrEqual(manifests.length);
      writeFileSync(
        path.join(project, "main.ts"),
        [
          'import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";',
          'import os from "node:os";',
          'import path from "node:path";',
          'import { SkillRegistry, validateSkillMd } from "@skillport/core";',
          'import { LocalFileSystemSkillProvider } from "@skillport/fs";',
          'const root = mkdtempSync(path.join(os.tmpdir(), "release-skills-"));',
          'mkdirSync(path.join(root, "hello"));',
          'const md = "---\\nname: hello\\ndescription: Says hello. Use when the user greets you.\\n---\\n# Hello\\n";',
          'writeFileSync(path.join(root, "hello", "SKILL.md"), md);',
          'const check = validateSkillMd(md, { profile: "spec", dirName: "hello" });',
          "const registry = new SkillRegistry();",
          "await registry.addProvider(new LocalFileSystemSkillProvider(root), { watch: false });",
          'console.log(check.valid, registry.list().map((e) => e.id).join(","), (await registry.catalog({ format: "markdown" })).includes("Says hello"));',
        ].join("\n"),
      );
      writeFileSync(
        path.join(project, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2023",
            module: "nodenext",
            moduleResolution: "nodenext",
            strict: true,
            noEmit: false,
            outDir: "out",
            skipLibCheck: false,
            types: ["node"],
          },
          include: ["*.ts"],
        }),
      );
      execFileSync(
        "npm",
        ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", "@types/node@20"],
        { cwd: project },
      );
      const tsc = spawnSync(
        process.execPath,
        [path.join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"],
        { cwd: project, encoding: "utf8" },
      );
      expect(tsc.stdout + tsc.stderr).toBe("");
      expect(tsc.status).toBe(0);
      const run = spawnSync(process.execPath, [path.join(project, "out", "main.js")], {
        cwd: project,
        encoding: "utf8",
      });
      expect(run.stderr).toBe("");
      expect(run.stdout).toBe("true hello true\n");

      const version = spawnSync("npx", ["--no-install", "skillport", "--version"], { cwd: project, encoding: "utf8" });
      expect([version.status, version.stdout.trim()]).toEqual([
        0,
        manifests.find((m) => m.json.name === "skillport")?.json.version,
      ]);
    },
  );

  it(
    "light installs: core alone ≤ 3 MB, the CLI alone ≤ 30 MB, no native code; a missing optional peer names its install line",
    { timeout: 600_000 },
    async () => {
      const optionalPeers = ["better-sqlite3", "pg", "mysql2", "esbuild", "js-tiktoken"];
      for (const { json } of manifests) {
        for (const peer of optionalPeers)
          expect(json.dependencies?.[peer], `${json.name} depends on ${peer}`).toBeUndefined();
        for (const peer of Object.keys(json.peerDependencies ?? {})) {
          if (optionalPeers.includes(peer))
            expect(json.peerDependenciesMeta?.[peer]?.optional, `${json.name}: ${peer} is optional`).toBe(true);
        }
      }

      const core = emptyProject("core-only");
      npm(["install", "--prefer-offline", ...tarballsFor("@skillport/core")], core);
      const coreModules = path.join(core, "node_modules");
      expect(nativeCode(coreModules)).toEqual([]);
      expect(existsSync(path.join(coreModules, "js-tiktoken"))).toBe(false);
      expect(treeBytes(coreModules)).toBeLessThanOrEqual(3_000_000);

      const cli = emptyProject("cli-only");
      npm(["install", "--prefer-offline", ...tarballsFor("skillport")], cli);
      const cliModules = path.join(cli, "node_modules");
      expect(nativeCode(cliModules)).toEqual([]);
      for (const peer of optionalPeers)
        expect(existsSync(path.join(cliModules, peer)), `${peer} installed`).toBe(false);
      expect(treeBytes(cliModules)).toBeLessThanOrEqual(30_000_000);

      // The everyday commands work from that install.
      mkdirSync(path.join(cli, "skills", "hello"), { recursive: true });
      writeFileSync(
        path.join(cli, "skills", "hello", "SKILL.md"),
        "---\nname: hello\ndescription: Says hello. Use when the user greets you.\n---\n# Hello\n",
      );
      writeFileSync(path.join(cli, "empty.db"), "");
      const bin = path.join(cliModules, "skillport", "bin", "skillport.js");
      const skillport = async (...args: string[]) => {
        const env = { PATH: process.env.PATH ?? "", HOME: cli, OPENAI_API_KEY: "sk-release-key" };
        try {
          const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], {
            cwd: cli,
            env,
            timeout: 120_000,
          });
          return { code: 0, stdout, stderr };
        } catch (error) {
          const e = error as { code?: number; stdout?: string; stderr?: string };
          return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
        }
      };
      const everyday: Array<[string[], string]> = [
        [["validate", "skills"], "1 skill checked: 0 errors, 0 warnings"],
        [["list", "skills"], "hello  Says hello."],
        [["search", "greets", "skills"], "hello"],
        [["prompt", "skills"], "<name>\nhello\n</name>"],
        [["show", "hello", "--root", "skills"], "# Hello"],
      ];
      for (const [args, shows] of everyday) {
        const result = await skillport(...args);
        expect([args.join(" "), result.code, result.stderr]).toEqual([args.join(" "), 0, ""]);
        expect(result.stdout, args.join(" ")).toContain(shows);
      }
      const server = await startScriptedServer([{ text: "Hello from the model." }]);
      try {
        const chat = await skillport(
          "chat",
          "skills",
          "--model",
          "openai:gpt-test",
          "--base-url",
          `${server.url}/v1`,
          "-p",
          "hi",
          "--no-stream",
        );
        expect([chat.code, chat.stdout.trim(), chat.stderr]).toEqual([0, "Hello from the model.", ""]);
      } finally {
        await server.close();
      }

      // The exact tokenizer is optional: prompt falls back to characters ÷ 4 and says how to get the real one.
      const tokens = await skillport("prompt", "skills", "--max-tokens", "100");
      expect(tokens.code).toBe(0);
      expect(tokens.stderr).toContain(
        "needs the package js-tiktoken, which is not installed: npm install js-tiktoken;",
      );

      // A feature whose peer is absent: one line, exit 2, the exact install command.
      mkdirSync(path.join(cli, "plugins"));
      expect((await skillport("plugin", "create", "demo-tool", "--cwd", "plugins")).code).toBe(0);
      const missing: Array<[string[], string, string]> = [
        [["list", "sqlite:./empty.db"], "better-sqlite3", "the SQL source sqlite:"],
        [
          ["copy", "skills", "postgres://user@127.0.0.1:9/skills"],
          "pg",
          "the SQL source postgres://user@127.0.0.1:9/skills",
        ],
        [["list", "mysql://user@127.0.0.1:9/skills"], "mysql2", "the SQL source mysql://user@127.0.0.1:9/skills"],
        [["plugin", "build", "--entry", "plugins/demo-tool"], "esbuild", "building a plugin"],
        [["registry", "serve", "--port", "0"], "@skillport/registry", "skillport registry"],
        [["runner", "status", "--queue", "nats://127.0.0.1:9"], "@skillport/runners", "skillport runner"],
      ];
      for (const [args, peer, feature] of missing) {
        const result = await skillport(...args);
        expect([args.join(" "), result.code], result.stderr).toEqual([args.join(" "), 2]);
        expect(result.stderr).toMatch(
          new RegExp(
            `^skillport: ${feature}.* needs the package ${peer}, which is not installed: npm install ${peer}\n$`,
          ),
        );
      }
    },
  );
});
