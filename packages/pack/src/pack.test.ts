import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chmod, mkdir, readFile, rm, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { InvalidPathError, LimitExceededError, SkillValidationError } from "@skillport/core";
import {
  DEFAULT_PACKAGE_LIMITS,
  checkPackageLayout,
  collectFiles,
  inspectPackage,
  packDirectory,
  packDirectoryToFile,
  unpackArchive,
} from "./index.js";
import { readCollected } from "./read-files.js";
import { skillMd, systemDependency, tempDir, writeTree } from "./__fixtures__/archives.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(async () => cleanup());

const hasBinary = (name: string) => spawnSync("sh", ["-c", `command -v ${name}`]).status === 0;
const infoZip = systemDependency(
  "zip/unzip/zipinfo",
  hasBinary("zip") && hasBinary("unzip") && hasBinary("zipinfo"),
  console.warn,
);

const TREE: Record<string, string> = {
  "skills/alpha/SKILL.md": skillMd("alpha"),
  "skills/alpha/scripts/run.py": "print('alpha')\n",
  "skills/beta/SKILL.md": skillMd("beta"),
  "skills/beta/references/guide.md": "# Guide\n".repeat(200),
  "skills/beta/assets/数据.txt": "unicode name\n",
  "entrypoint.sh": "#!/bin/bash\necho init\n",
  "requirements.txt": "requests==2.32.0\n",
};

async function makeTree(
  root: string,
  order: "forward" | "reverse",
  variant: { mtime: Date; fileMode: number; execMode: number },
): Promise<void> {
  const entries = Object.entries(TREE);
  if (order === "reverse") entries.reverse();
  for (const [rel, content] of entries) {
    const file = path.join(root, ...rel.split("/"));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
    await chmod(file, rel.endsWith(".py") ? variant.execMode : variant.fileMode);
    await utimes(file, variant.mtime, variant.mtime);
  }
}

describe("deterministic archives", () => {
  it("gives byte-identical zips regardless of mtimes, creation order and umask-style modes", async () => {
    const a = path.join(dir, "a");
    const b = path.join(dir, "b");
    await makeTree(a, "forward", { mtime: new Date("2001-02-03T04:05:06Z"), fileMode: 0o644, execMode: 0o755 });
    const umask = process.umask(0o077); // files and directories created now are private, as under a strict umask
    try {
      await makeTree(b, "reverse", { mtime: new Date(), fileMode: 0o600, execMode: 0o700 });
    } finally {
      process.umask(umask);
    }
    const first = await packDirectory(a);
    const second = await packDirectory(b);
    expect(Buffer.from(second.archive).equals(Buffer.from(first.archive))).toBe(true);
    expect(second.versionId).toBe(first.versionId);
    expect(first.versionId).toMatch(/^[a-f0-9]{24}$/);
    expect(first.digest).toMatch(new RegExp(`^sha256:${first.versionId}[a-f0-9]{40}$`));
  });

  it("gives the same bytes in processes started in different time zones", async () => {
    // The zip writer, bundled from source, runs in one child process per TZ (DOS times are local time).
    const bundle = path.join(dir, "zip-writer.cjs");
    await build({
      entryPoints: [fileURLToPath(new URL("./zip-writer.ts", import.meta.url))],
      bundle: true,
      platform: "node",
      format: "cjs",
      outfile: bundle,
      logLevel: "silent",
    });
    const script = `require(${JSON.stringify(bundle)})
      .writeDeterministicZip([{ path: "b.sh", bytes: Buffer.from("echo"), mode: 0o755 }, { path: "a.md", bytes: Buffer.from("# a"), mode: 0o644 }])
      .then((bytes) => process.stdout.write(Buffer.from(bytes).toString("base64")));`;
    const outputs = ["UTC", "Asia/Kolkata", "America/St_Johns", "Pacific/Kiritimati", "Etc/GMT+12"].map((tz) =>
      Buffer.from(
        execFileSync(process.execPath, ["-e", script], { env: { ...process.env, TZ: tz }, encoding: "utf8" }),
        "base64",
      ),
    );
    for (const output of outputs) expect(output.equals(outputs[0] ?? Buffer.alloc(0))).toBe(true);
    // DOS time 00:00 and date 1980-01-01 (0x0021) in the first local header; first entry is a.md (sorted).
    expect(outputs[0]?.readUInt16LE(10)).toBe(0);
    expect(outputs[0]?.readUInt16LE(12)).toBe(0x21);
    expect(outputs[0]?.subarray(30, 34).toString()).toBe("a.md");
  });

  it("changes the versionId and bytes when one byte or one mode changes", async () => {
    await makeTree(dir, "forward", { mtime: new Date(), fileMode: 0o644, execMode: 0o755 });
    const base = await packDirectory(dir);
    await writeFile(path.join(dir, "requirements.txt"), "requests==2.32.1\n");
    const byte = await packDirectory(dir);
    expect(byte.versionId).not.toBe(base.versionId);
    await writeFile(path.join(dir, "requirements.txt"), "requests==2.32.0\n");
    expect((await packDirectory(dir)).versionId).toBe(base.versionId);
    await chmod(path.join(dir, "requirements.txt"), 0o755);
    expect((await packDirectory(dir)).versionId).not.toBe(base.versionId);
  });

  it("keeps every file's bytes although files are read into one reused buffer (stored entries too)", async () => {
    // Incompressible files are stored, not deflated: the writer must copy them before the next file's read reuses
    // the buffer. Random bytes of several sizes, before and after smaller and larger text files.
    const random = (n: number, seed: number) =>
      Buffer.concat(
        Array.from({ length: Math.ceil(n / 64) }, (_, i) => createHash("sha512").update(`${seed}:${i}`).digest()),
      ).subarray(0, n);
    const files: Record<string, string | Buffer> = { "skills/a/SKILL.md": skillMd("a") };
    files["skills/a/assets/a.bin"] = random(40_000, 1);
    files["skills/a/assets/b.txt"] = "text ".repeat(3000);
    files["skills/a/assets/c.bin"] = random(90_000, 2);
    files["skills/a/assets/d.bin"] = random(20_000, 3);
    files["skills/a/assets/e.txt"] = Array.from({ length: 6000 }, (_, i) => `line ${i}\n`).join("");
    await writeTree(dir, files);
    const { archive, versionId } = await packDirectory(dir);
    const out = path.join(dir, "..", `${path.basename(dir)}-out`);
    try {
      const unpacked = await unpackArchive(archive, out);
      expect(unpacked.versionId).toBe(versionId);
      for (const [rel, content] of Object.entries(files))
        expect(await readFile(path.join(out, rel))).toEqual(Buffer.from(content));
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it("writes a manifest with every file, size, sha256 and mode, and the skills found", async () => {
    await makeTree(dir, "forward", { mtime: new Date(), fileMode: 0o644, execMode: 0o644 });
    const { manifest } = await packDirectory(dir);
    expect(manifest.files.map((f) => [f.path, f.size, f.mode])).toEqual([
      ["entrypoint.sh", 22, 0o755],
      ["requirements.txt", 17, 0o644],
      ["skills/alpha/SKILL.md", Buffer.byteLength(TREE["skills/alpha/SKILL.md"] ?? ""), 0o644],
      ["skills/alpha/scripts/run.py", 15, 0o644],
      ["skills/beta/SKILL.md", Buffer.byteLength(TREE["skills/beta/SKILL.md"] ?? ""), 0o644],
      ["skills/beta/assets/数据.txt", 13, 0o644],
      ["skills/beta/references/guide.md", 1600, 0o644],
    ]);
    expect(manifest.files[1]?.sha256).toBe(createHash("sha256").update("requests==2.32.0\n").digest("hex"));
    expect(manifest.totalBytes).toBe(manifest.files.reduce((s, f) => s + f.size, 0));
    expect(manifest.skills).toEqual([
      { name: "alpha", description: "Does alpha things. Use when testing.", path: "skills/alpha" },
      { name: "beta", description: "Does beta things. Use when testing.", path: "skills/beta" },
    ]);
  });

  it.skipIf(infoZip.skip)(
    "produces standard archives that Info-ZIP tests clean, with fixed dates and normalised modes",
    async () => {
      await makeTree(dir, "forward", { mtime: new Date(), fileMode: 0o600, execMode: 0o700 });
      const out = path.join(dir, "out", "pkg.zip");
      await packDirectoryToFile(dir, out);
      expect(execFileSync("unzip", ["-tq", out], { encoding: "utf8" })).toMatch(/No errors detected/);
      const listing = execFileSync("zipinfo", [out], {
        encoding: "utf8",
        env: { ...process.env, LC_ALL: "C.UTF-8" },
      }).split("\n");
      const rows = listing.filter((l) => /^[-d]r/.test(l));
      expect(rows).toHaveLength(7);
      for (const row of rows) expect(row).toMatch(/ unx .* defN 80-Jan-01 00:00 /);
      expect(rows.find((r) => r.endsWith("entrypoint.sh"))).toMatch(/^-rwxr-xr-x/);
      expect(rows.find((r) => r.endsWith("skills/alpha/scripts/run.py"))).toMatch(/^-rwxr-xr-x/);
      expect(rows.find((r) => r.endsWith("requirements.txt"))).toMatch(/^-rw-r--r--/);
      expect(rows.map((r) => r.split(/\s+/).slice(8).join(" "))).toEqual([
        "entrypoint.sh",
        "requirements.txt",
        "skills/alpha/SKILL.md",
        "skills/alpha/scripts/run.py",
        "skills/beta/SKILL.md",
        "skills/beta/assets/数据.txt",
        "skills/beta/references/guide.md",
      ]);
    },
  );

  it.skipIf(infoZip.skip)(
    "reads what Info-ZIP writes (inspect gives the same versionId as packing the directory)",
    async () => {
      await makeTree(dir, "forward", { mtime: new Date(), fileMode: 0o644, execMode: 0o755 });
      const packed = await packDirectory(dir);
      const zipFile = path.join(path.dirname(dir), `${path.basename(dir)}-infozip.zip`);
      try {
        execFileSync("zip", ["-r", "-X", "-q", zipFile, "."], { cwd: dir });
        const inspected = await inspectPackage(zipFile);
        expect(inspected.source).toBe("zip");
        expect(inspected.versionId).toBe(packed.versionId);
        expect(inspected.valid).toBe(true);
      } finally {
        await rm(zipFile, { force: true });
      }
    },
  );

  it("leaves its own output out when it is written inside the package", async () => {
    await writeTree(dir, { "skills/a/SKILL.md": skillMd("a") });
    const out = path.join(dir, "release.zip");
    const first = await packDirectoryToFile(dir, out);
    const second = await packDirectoryToFile(dir, out);
    expect(second.versionId).toBe(first.versionId);
    expect(second.manifest.excluded).toEqual([{ path: "release.zip", reason: "output archive" }]);
    expect(Buffer.from(await readFile(out)).equals(Buffer.from(second.archive))).toBe(true);
  });
});

describe("layout check", () => {
  it("lists every problem with its file and line", async () => {
    await writeTree(dir, {
      "skills/good/SKILL.md": skillMd("good"),
      "skills/dupe-a/SKILL.md": skillMd("shared"),
      "skills/dupe-b/SKILL.md": "---\ndescription: second\nname: Shared\n---\nbody\n",
      "skills/no-md/readme.txt": "x",
      "skills/broken/SKILL.md": "no frontmatter here\n",
      "skills/stray.md": "x",
    });
    const report = await checkPackageLayout(dir);
    expect(report.valid).toBe(false);
    const summary = report.diagnostics.map((d) => `${d.severity} ${d.code} ${d.file}`);
    expect(summary).toEqual(
      expect.arrayContaining([
        "warning package-stray-file skills/stray.md",
        "error frontmatter-missing skills/broken/SKILL.md",
        "error package-skill-md-missing skills/no-md/",
        "error skill-name-duplicate skills/dupe-b/SKILL.md",
      ]),
    );
    const dupe = report.diagnostics.find((d) => d.code === "skill-name-duplicate");
    expect(dupe?.message).toBe("Duplicate runtime skill name: Shared (also declared in skills/dupe-a/SKILL.md)");
    expect(dupe?.line).toBeGreaterThanOrEqual(1);
    expect(report.skills.map((s) => s.name)).toEqual(["broken", "shared", "Shared", "good"]);
  });

  it.each([
    ["no skills/ directory", { "README.md": "x" }, "package-skills-missing", "skills/"],
    ["skills/ without any SKILL.md", { "skills/a/notes.md": "x" }, "package-no-skills", "skills/"],
  ])("reports %s", async (_name, files, code, file) => {
    await writeTree(dir, files);
    const report = await checkPackageLayout(dir);
    expect(report.valid).toBe(false);
    expect(report.diagnostics.map((d) => [d.code, d.file])).toContainEqual([code, file]);
  });

  it("packDirectory refuses an invalid package with SkillValidationError carrying the diagnostics", async () => {
    await writeTree(dir, { "skills/a/SKILL.md": "---\nname: a\n---\n", "skills/b/x.txt": "x" });
    const error = await packDirectory(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillValidationError);
    expect((error as SkillValidationError).message).toMatch(/package layout check failed with \d+ errors?/);
    expect((error as SkillValidationError).diagnostics.map((d) => d.code)).toContain("package-skill-md-missing");
    const lenient = await packDirectory(dir, { requireValid: false });
    expect(lenient.diagnostics.some((d) => d.severity === "error")).toBe(true);
    expect(lenient.manifest.files.map((f) => f.path)).toEqual(["skills/a/SKILL.md", "skills/b/x.txt"]);
  });
});

describe("links and limits", () => {
  it("refuses a symbolic link by default, naming it", async () => {
    await writeTree(dir, { "skills/a/SKILL.md": skillMd("a"), "shared/lib.py": "x" });
    await symlink("../../shared/lib.py", path.join(dir, "skills/a/lib.py"));
    const error = await packDirectory(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidPathError);
    expect((error as InvalidPathError).path).toBe("skills/a/lib.py");
    expect((error as Error).message).toMatch(/is a symbolic link/);
  });

  it("follows links that stay inside with followLinks, and refuses ones that escape", async () => {
    await writeTree(dir, {
      "pkg/skills/a/SKILL.md": skillMd("a"),
      "pkg/shared/lib.py": "print(1)\n",
      "pkg/lib-link.py": { link: "shared/lib.py" },
      "outside.txt": "secret",
    });
    const pkg = path.join(dir, "pkg");
    await symlink("../shared", path.join(pkg, "skills/linked-dir"));
    await expect(packDirectory(pkg, { requireValid: false })).rejects.toThrow(/lib-link\.py.*--follow-links/);
    const followed = await packDirectory(pkg, { followLinks: true, requireValid: false });
    expect(followed.manifest.files.map((f) => f.path)).toEqual([
      "lib-link.py",
      "shared/lib.py",
      "skills/a/SKILL.md",
      "skills/linked-dir/lib.py",
    ]);
    await symlink("../../../outside.txt", path.join(pkg, "skills/a/escape.txt"));
    await expect(packDirectory(pkg, { followLinks: true, requireValid: false })).rejects.toThrow(
      /skills\/a\/escape\.txt.*outside/,
    );
  });

  // fs's skill-directory rule (decision 0121): inside a skill folder, a link that stays in the skill is packed (as
  // the target's bytes) without --follow-links; one leaving the skill is refused even with it.
  it("applies the skill link rule inside skills/<name>/", async () => {
    await writeTree(dir, {
      "skills/a/SKILL.md": skillMd("a"),
      "skills/a/references/real.md": "real",
      "skills/a/references/alias.md": { link: "real.md" },
      "skills/b/SKILL.md": skillMd("b"),
    });
    const packed = await packDirectory(dir);
    expect(packed.manifest.files.map((f) => f.path)).toEqual([
      "skills/a/SKILL.md",
      "skills/a/references/alias.md",
      "skills/a/references/real.md",
      "skills/b/SKILL.md",
    ]);
    await symlink("../../b/SKILL.md", path.join(dir, "skills/a/references/peek.md"));
    for (const followLinks of [false, true]) {
      await expect(packDirectory(dir, { followLinks })).rejects.toThrow(
        /skills\/a\/references\/peek\.md.*leads outside the skill/,
      );
    }
  });

  it("packs skills/<name>/skill.md as SKILL.md when SKILL.md is absent", async () => {
    await writeTree(dir, { "skills/low/skill.md": skillMd("low") });
    const packed = await packDirectory(dir);
    expect(packed.manifest.files.map((f) => f.path)).toEqual(["skills/low/SKILL.md"]);
    expect(packed.manifest.skills.map((s) => s.name)).toEqual(["low"]);
  });

  it("refuses a link loop", async () => {
    await writeTree(dir, { "skills/a/SKILL.md": skillMd("a"), "skills/a/sub/x.md": "x" });
    await symlink("..", path.join(dir, "skills/a/sub/loop"));
    await expect(packDirectory(dir)).rejects.toThrow(/skills\/a\/sub\/loop.*loop/);
  });

  it.each([
    ["maxFiles", { maxFiles: 2 }, /more than 2 files/],
    ["maxFileBytes", { maxFileBytes: 100 }, /skills\/a\/big\.txt is 200 B, over the 100 B per-file limit/],
    ["maxTotalBytes", { maxTotalBytes: 150 }, /larger than 150 B uncompressed/],
    ["maxDepth", { maxDepth: 3 }, /skills\/a\/deep\/x\.txt is nested deeper than 3 levels/],
    ["maxArchiveBytes", { maxArchiveBytes: 100 }, /the archive would be .* over the 100 B limit/],
  ])("enforces %s", async (limit, limits, message) => {
    await writeTree(dir, {
      "skills/a/SKILL.md": skillMd("a"),
      "skills/a/big.txt": "b".repeat(200),
      "skills/a/deep/x.txt": "x",
    });
    const error = await packDirectory(dir, { limits }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimitExceededError);
    expect((error as LimitExceededError).limit).toBe(limit);
    expect((error as Error).message).toMatch(message);
  });

  it("refuses a file name the unpacker would refuse (shared path rules)", async () => {
    await writeTree(dir, { "skills/a/SKILL.md": skillMd("a"), "skills/a/c:d.txt": "x" });
    const error = await packDirectory(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidPathError);
    expect((error as Error).message).toBe(`invalid path "skills/a/c:d.txt": contains ':'`);
  });

  it("rejects a limit that is not a positive number", async () => {
    await expect(packDirectory(dir, { limits: { maxFiles: 0 } })).rejects.toThrow(
      /limit maxFiles must be a positive number/,
    );
  });
});

describe("inspectPackage", () => {
  it("describes a workspace and its archive identically", async () => {
    await writeTree(dir, { "pkg/skills/a/SKILL.md": skillMd("a"), "pkg/.env": "X=1", "pkg/node_modules/m/i.js": "x" });
    const pkg = path.join(dir, "pkg");
    const fromDir = await inspectPackage(pkg);
    const packed = await packDirectory(pkg);
    const fromZip = await inspectPackage(packed.archive);
    expect(fromDir.source).toBe("directory");
    expect(fromZip.source).toBe("zip");
    expect(fromZip.versionId).toBe(fromDir.versionId);
    expect(fromZip.files).toEqual(fromDir.files);
    expect(fromZip.skills).toEqual(fromDir.skills);
    expect(fromDir.excluded).toEqual([
      { path: ".env", reason: "secret (.env)" },
      { path: "node_modules/", reason: "dependency or cache (node_modules/)" },
    ]);
    expect(fromZip.excluded).toEqual([]);
  });
});

describe("untrusted package trees (issue 8)", () => {
  it("a file swapped for a link after the walk is refused, never read (the host file stays out of the package)", async () => {
    const outside = path.join(dir, "outside");
    const pkg = path.join(dir, "pkg");
    await writeTree(outside, { shadow: "root:secret-hash" });
    await writeTree(pkg, { "skills/a/SKILL.md": skillMd("a"), "skills/a/data.txt": "harmless" });
    const collected = await collectFiles(pkg, { limits: { ...DEFAULT_PACKAGE_LIMITS } });
    // Between the walk and the read, the file becomes a link to a host file (as a racing process would make it).
    await rm(path.join(pkg, "skills/a/data.txt"));
    await symlink(path.join(outside, "shadow"), path.join(pkg, "skills/a/data.txt"));
    const seen: string[] = [];
    const error = await readCollected(collected, { maxFileBytes: 1 << 20 }, (_f, bytes) =>
      seen.push(Buffer.from(bytes).toString()),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidPathError);
    expect(seen.join("")).not.toContain("secret");
    // Even with links allowed, the target must stay inside the package.
    const followed = await readCollected(
      collected,
      { followLinks: true, maxFileBytes: 1 << 20 },
      () => undefined,
    ).catch((e: unknown) => e);
    expect(followed).toBeInstanceOf(InvalidPathError);
    expect((followed as Error).message).not.toContain(outside);
  });

  it("with followLinks, a harmless-named link to a secret is judged by its target and left out", async () => {
    await writeTree(dir, {
      "skills/a/SKILL.md": skillMd("a"),
      "skills/a/.env": "API_KEY=hunter2",
      "config/.aws/credentials": "[default]\naws_secret_access_key=x",
    });
    await symlink(".env", path.join(dir, "skills/a/settings.txt"));
    await symlink("../../config/.aws/credentials", path.join(dir, "skills/a/aws.ini"));
    const result = await packDirectory(dir, { followLinks: true });
    expect(result.manifest.files.map((f) => f.path)).toEqual(["skills/a/SKILL.md"]);
    expect(result.manifest.excluded).toEqual([
      { path: "config/.aws/", reason: "secret (.aws/)" },
      { path: "skills/a/.env", reason: "secret (.env)" },
      { path: "skills/a/aws.ini", reason: "link to config/.aws/credentials: secret (.aws/)" },
      { path: "skills/a/settings.txt", reason: "link to skills/a/.env: secret (.env)" },
    ]);
  });
});
