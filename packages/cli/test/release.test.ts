// The release check (issue 9): every workspace package packs into a tarball that installs OUTSIDE the monorepo, a
// strict `nodenext` TypeScript program compiles and runs against the installed tarballs (every ```ts example in the
// packages' READMEs included), and the CLI's bin works from its tarball. Slow (npm pack + npm install): one test.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const workspaces = (JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")) as { workspaces: string[] }).workspaces;
const manifests = workspaces.map((ws) => ({ dir: path.join(repo, ws), json: JSON.parse(readFileSync(path.join(repo, ws, "package.json"), "utf8")) as PackageJson }));
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
  bin?: Record<string, string>;
}

const npm = (args: string[], cwd: string) => execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

describe("publish-ready packages", () => {
  it.each(manifests.map((m) => [m.json.name, m] as const))("%s declares what a published package needs", (_name, { dir, json }) => {
    expect(json.license).toBe("Apache-2.0");
    expect(json.engines?.node).toBe(">=20.19");
    expect(json.files).toContain("dist");
    expect(json.exports?.["."]?.types).toBe("./dist/index.d.ts");
    expect(json.types).toBe("./dist/index.d.ts");
    if (json.name.startsWith("@")) expect(json.publishConfig?.access).toBe("public");
    for (const [dep, range] of Object.entries(json.dependencies ?? {})) {
      if (dep.startsWith("@skillport/") || dep === "skillport") expect(range, `${json.name} → ${dep}`).toMatch(/^\^\d+\.\d+\.\d+$/);
    }
    expect(existsSync(path.join(dir, "README.md")), `${json.name} has a README.md`).toBe(true);
  });

  it("every tarball installs into a fresh project; a strict nodenext program and the README examples compile and run; the bin works", { timeout: 600_000 }, () => {
    const tarballs = path.join(work, "tarballs");
    mkdirSync(tarballs);
    npm(["pack", "--workspaces", "--pack-destination", tarballs], repo);
    const files = readdirSync(tarballs).filter((f) => f.endsWith(".tgz"));
    expect(files).toHaveLength(manifests.length);
    for (const file of files) {
      const listing = execFileSync("tar", ["-tzf", path.join(tarballs, file)], { encoding: "utf8" }).split("\n");
      expect(listing, file).toContain("package/LICENSE");
      expect(listing, file).toContain("package/README.md");
      expect(listing.some((entry) => entry.endsWith(".test.js")), file).toBe(false);
    }

    const project = path.join(work, "project");
    mkdirSync(project);
    writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "release-check", private: true, type: "module" }));
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
      JSON.stringify({ compilerOptions: { target: "ES2023", module: "nodenext", moduleResolution: "nodenext", strict: true, noEmit: false, outDir: "out", skipLibCheck: false, types: ["node"] }, include: ["*.ts"] }),
    );
    execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", "@types/node@20"], { cwd: project });
    const tsc = spawnSync(process.execPath, [path.join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], { cwd: project, encoding: "utf8" });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
    const run = spawnSync(process.execPath, [path.join(project, "out", "main.js")], { cwd: project, encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("true hello true\n");

    const version = spawnSync("npx", ["--no-install", "skillport", "--version"], { cwd: project, encoding: "utf8" });
    expect([version.status, version.stdout.trim()]).toEqual([0, manifests.find((m) => m.json.name === "skillport")?.json.version]);
  });
});
