// Tests of the package commands (pack, inspect, unpack, export, import): in-process through the real program, and
// end to end against the built binary (`npm test` builds first).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, readdir, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runInProcess } from "../test-support.js";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));
const example = path.join(repo, "examples/package");
const builtCli = path.join(repo, "packages/cli/dist/cli.js");

/** The real program (commands/index.ts registrations, program.ts error mapping), in-process. */
const cli = (argv: string[], cwd: string) => runInProcess(argv, cwd);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "skillport-cli-pack-"));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const EXAMPLE_FILES = [
  ".env.example",
  ".gitignore",
  "README.md",
  "entrypoint.sh",
  "requirements.txt",
  "skills/extract-emails/SKILL.md",
  "skills/extract-emails/scripts/extract.py",
  "skills/format-report/.gitignore",
  "skills/format-report/SKILL.md",
  "skills/format-report/assets/sample.csv",
  "skills/format-report/scripts/render.py",
  "skills/word-stats/SKILL.md",
  "skills/word-stats/scripts/stats.sh",
];

async function copyExample(): Promise<string> {
  const pkg = path.join(dir, "pkg");
  await cp(example, pkg, { recursive: true });
  // Things a real workspace accumulates; none of them may reach the package.
  await writeFile(path.join(pkg, ".env"), "API_KEY=sk-live-123\n");
  await mkdir(path.join(pkg, "node_modules/left-pad"), { recursive: true });
  await writeFile(path.join(pkg, "node_modules/left-pad/index.js"), "module.exports = 1;\n");
  await writeFile(path.join(pkg, "skills/format-report/assets/private.csv"), "name,value\nx,1\n");
  return pkg;
}

describe("skillport pack", () => {
  it("--json prints exactly the documented shape", async () => {
    const pkg = await copyExample();
    const run = await cli(["pack", "pkg", "-o", "out/pkg.zip", "--json"], dir);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(["versionId", "digest", "output", "bytes", "files", "skills", "excluded"]);
    expect(json.versionId).toMatch(/^[a-f0-9]{24}$/);
    expect(json.digest).toBe(`sha256:${String(json.versionId)}${String(json.digest).slice(31)}`);
    expect(json.output).toBe("out/pkg.zip");
    expect(json.bytes).toBe((await readFile(path.join(dir, "out/pkg.zip"))).byteLength);
    expect(json.files).toBe(EXAMPLE_FILES.length);
    expect((json.skills as { name: string }[]).map((s) => s.name)).toEqual([
      "extract-emails",
      "format-report",
      "word-stats",
    ]);
    expect(json.excluded).toEqual([
      { path: ".env", reason: "secret (.env)" },
      { path: "node_modules/", reason: "dependency or cache (node_modules/)" },
      { path: "skills/format-report/assets/private.csv", reason: ".gitignore (*.csv)" },
    ]);
    // Same content, same id: the pristine example packs to the same versionId.
    const again = JSON.parse((await cli(["pack", example, "-o", "b.zip", "--json"], dir)).stdout) as {
      versionId: string;
    };
    expect(again.versionId).toBe(json.versionId);
    expect(pkg).toBeTruthy();
  });

  it("prints a short summary and names the default output after the versionId", async () => {
    await copyExample();
    const run = await cli(["pack", "pkg"], dir);
    expect(run.code).toBe(0);
    const id = /versionId ([a-f0-9]{24})/.exec(run.stdout)?.[1];
    expect(id).toBeDefined();
    expect(run.stdout).toMatch(new RegExp(`^packed 13 files \\(.+\\) into pkg-${id}\\.zip \\(.+\\)$`, "m"));
    expect(run.stdout).toContain("skills    extract-emails, format-report, word-stats");
    expect(run.stdout).toContain("  .env  secret (.env)");
    expect(await readdir(dir)).toContain(`pkg-${id}.zip`);
  });

  it("exits 1 listing every layout error, and writes nothing", async () => {
    await writeFile(path.join(dir, "x"), "");
    await mkdir(path.join(dir, "bad/skills/a"), { recursive: true });
    await writeFile(path.join(dir, "bad/skills/a/SKILL.md"), "---\nname: a\n---\n");
    await mkdir(path.join(dir, "bad/skills/b"), { recursive: true });
    await writeFile(path.join(dir, "bad/skills/b/notes.md"), "x");
    const run = await cli(["pack", "bad", "-o", "bad.zip"], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("skills/b/  error  package-skill-md-missing  ");
    expect(run.stderr).toMatch(/\d+ errors?; nothing written/);
    expect(existsSync(path.join(dir, "bad.zip"))).toBe(false);
    const json = JSON.parse((await cli(["pack", "bad", "--json"], dir)).stdout) as {
      valid: boolean;
      diagnostics: { code: string }[];
    };
    expect(json.valid).toBe(false);
    expect(json.diagnostics.map((d) => d.code)).toContain("package-skill-md-missing");
  });

  it("--include-secrets packs credentials and warns loudly, naming them", async () => {
    const pkg = await copyExample();
    await writeFile(path.join(pkg, "dev.pem"), "-----BEGIN PRIVATE KEY-----\n");
    const run = await cli(["pack", "pkg", "-o", "s.zip", "--include-secrets", "--json"], dir);
    expect(run.code).toBe(0);
    // .env stays out anyway: the example's own .gitignore lists it.
    expect(run.stderr).toBe("WARNING: --include-secrets: files that look like credentials are packed:\n  dev.pem\n");
    expect((JSON.parse(run.stdout) as { files: number }).files).toBe(EXAMPLE_FILES.length + 1);
  });

  it("reports a missing directory in one line with exit 2", async () => {
    const run = await cli(["pack", "nope"], dir);
    expect(run).toEqual({ code: 2, stdout: "", stderr: "skillport: nope: no such directory\n" });
  });
});

describe("skillport inspect / unpack", () => {
  it("inspect --json of an archive lists files with sha256, skills and the same versionId", async () => {
    await copyExample();
    const packed = JSON.parse((await cli(["pack", "pkg", "-o", "p.zip", "--json"], dir)).stdout) as {
      versionId: string;
      digest: string;
    };
    const run = await cli(["inspect", "p.zip", "--json"], dir);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as Record<string, unknown> & {
      files: { path: string; size: number; sha256: string; mode: number }[];
    };
    expect(Object.keys(json)).toEqual([
      "source",
      "versionId",
      "digest",
      "files",
      "totalBytes",
      "skills",
      "excluded",
      "diagnostics",
      "valid",
    ]);
    expect(json).toMatchObject({
      source: "zip",
      versionId: packed.versionId,
      digest: packed.digest,
      valid: true,
      excluded: [],
    });
    expect(json.files.map((f) => f.path)).toEqual(EXAMPLE_FILES);
    expect(json.files.every((f) => /^[a-f0-9]{64}$/.test(f.sha256))).toBe(true);
    expect(json.files.find((f) => f.path === "entrypoint.sh")?.mode).toBe(0o755);
    const text = await cli(["inspect", "p.zip"], dir);
    expect(text.stdout).toContain(`versionId ${packed.versionId}`);
    expect(text.stdout).toMatch(/^ {2}755 +\d+ {2}entrypoint\.sh/m);
  });

  it("inspect exits 1 for a workspace with layout errors", async () => {
    await mkdir(path.join(dir, "ws/skills/x"), { recursive: true });
    await writeFile(path.join(dir, "ws/skills/x/readme.md"), "x");
    const run = await cli(["inspect", "ws", "--json"], dir);
    expect(run.code).toBe(1);
    expect((JSON.parse(run.stdout) as { valid: boolean }).valid).toBe(false);
  });

  it("unpack --json extracts with the same versionId; refuses a zip-slip with exit 2 and writes nothing", async () => {
    await copyExample();
    const packed = JSON.parse((await cli(["pack", "pkg", "-o", "p.zip", "--json"], dir)).stdout) as {
      versionId: string;
    };
    const run = await cli(["unpack", "p.zip", "deploy/v1", "--json"], dir);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual([
      "format",
      "output",
      "versionId",
      "digest",
      "files",
      "bytes",
      "strippedPrefix",
      "dropped",
    ]);
    expect(json).toMatchObject({
      format: "zip",
      output: "deploy/v1",
      versionId: packed.versionId,
      files: EXAMPLE_FILES.length,
      strippedPrefix: null,
      dropped: [],
    });
    expect(await readFile(path.join(dir, "deploy/v1/skills/word-stats/scripts/stats.sh"), "utf8")).toContain("wc -l");

    const evil = Buffer.from(
      "UEsDBBQAAAAAAAAAIQAAAAAAAAAAAAAAAAAEAAAALi4veFBLAQIUAxQAAAAAAAAAIQAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAACkgQAAAAAuLi94UEsFBgAAAAABAAEAMgAAACIAAAAAAA==",
      "base64",
    );
    await writeFile(path.join(dir, "evil.zip"), evil);
    const refused = await cli(["unpack", "evil.zip", "evil-out"], dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('skillport: invalid path "../x": segment ".." is not allowed\n');
    expect(existsSync(path.join(dir, "evil-out"))).toBe(false);
  });
});

describe("skillport export / import", () => {
  it("export --json writes <name>.skill; import --json installs it; a second import needs --force", async () => {
    await copyExample();
    const exported = await cli(["export", "pkg/skills/word-stats", "--json"], dir);
    expect(exported.code).toBe(0);
    const json = JSON.parse(exported.stdout) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(["name", "output", "versionId", "digest", "bytes", "files", "excluded"]);
    expect(json).toMatchObject({ name: "word-stats", output: "word-stats.skill", files: 2, excluded: [] });

    const imported = await cli(["import", "word-stats.skill", "--into", "agent/skills", "--json"], dir);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({
      name: "word-stats",
      dir: "agent/skills/word-stats",
      files: 2,
      replaced: false,
      dropped: [],
    });
    expect(await readdir(path.join(dir, "agent/skills/word-stats"))).toEqual(["SKILL.md", "scripts"]);

    const again = await cli(["import", "word-stats.skill", "--into", "agent/skills"], dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/skill "word-stats" already exists in agent\/skills; pass --force to replace it/);
    const forced = await cli(["import", "word-stats.skill", "--into", "agent/skills", "--force"], dir);
    expect(forced).toEqual({
      code: 0,
      stdout: "replaced word-stats (2 files) into agent/skills/word-stats\n",
      stderr: "",
    });
  });

  it("import exits 1 with diagnostics for an invalid SKILL.md, writing nothing", async () => {
    await mkdir(path.join(dir, "broken"));
    await writeFile(path.join(dir, "broken/SKILL.md"), "---\nname: [oops\n---\n");
    const run = await cli(["export", "broken"], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/SKILL\.md:\d+:\d+ {2}error {2}yaml-invalid {2}/);
    expect(run.stderr).toMatch(/skillport: broken: SKILL.md failed validation with \d+ errors?; nothing written/);
    expect(existsSync(path.join(dir, "broken.skill"))).toBe(false);
  });
});

// The same flows through the built binary.
describe.runIf(existsSync(builtCli))("built binary e2e", () => {
  const bin = (args: string[]) => spawnSync(process.execPath, [builtCli, ...args], { cwd: dir, encoding: "utf8" });

  it("pack → inspect → unpack → export → import", async () => {
    const pack = bin(["pack", example, "-o", "e.zip", "--json"]);
    expect(pack.status).toBe(0);
    const packed = JSON.parse(pack.stdout) as { versionId: string; files: number };
    expect(packed.files).toBe(EXAMPLE_FILES.length);
    const inspect = bin(["inspect", "e.zip", "--json"]);
    expect(inspect.status).toBe(0);
    expect((JSON.parse(inspect.stdout) as { versionId: string }).versionId).toBe(packed.versionId);
    const unpack = bin(["unpack", "e.zip", "out", "--json"]);
    expect(unpack.status).toBe(0);
    expect((JSON.parse(unpack.stdout) as { versionId: string }).versionId).toBe(packed.versionId);
    const exported = bin(["export", path.join(example, "skills/extract-emails"), "--json"]);
    expect(exported.status).toBe(0);
    const imported = bin(["import", "extract-emails.skill", "--into", "skills", "--json"]);
    expect(imported.status).toBe(0);
    expect((JSON.parse(imported.stdout) as { name: string }).name).toBe("extract-emails");
    const missing = bin(["unpack", "nope.zip", "x"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe("skillport: nope.zip: no such file\n");
  });
});
