import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { symlink } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_PACKAGE_LIMITS, DEFAULT_EXCLUSIONS, ExclusionRules, collectFiles } from "./index.js";
import { NOT_SECRET_FILES, SECRET_FILE_CASES, SERVICE_ACCOUNT_KEY } from "../../core/src/__fixtures__/secret-files.js";
import { skillMd, tempDir, writeTree } from "./__fixtures__/archives.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(async () => cleanup());

const collect = (options: { includeSecrets?: boolean } = {}) =>
  collectFiles(dir, { limits: { ...DEFAULT_PACKAGE_LIMITS }, ...options });

/** One sample per FastGPT default entry: [pattern, a file it must exclude, what the excluded list shows]. */
const DEFAULT_TABLE: [string, string, string][] = [
  ["node_modules/", "node_modules/x/index.js", "node_modules/"],
  [".npm/", ".npm/_cacache/x", ".npm/"],
  [".yarn/", ".yarn/cache/x.zip", ".yarn/"],
  [".pnpm-store/", ".pnpm-store/v3/x", ".pnpm-store/"],
  ["package.zip", "package.zip", "package.zip"],
  ["__pycache__/", "skills/a/__pycache__/m.cpython-312.pyc", "skills/a/__pycache__/"],
  ["*.pyc", "skills/a/m.pyc", "skills/a/m.pyc"],
  ["*.pyo", "skills/a/m.pyo", "skills/a/m.pyo"],
  ["*.pyd", "skills/a/m.pyd", "skills/a/m.pyd"],
  [".venv/", ".venv/bin/python", ".venv/"],
  ["venv/", "venv/lib/x.py", "venv/"],
  ["env/", "env/lib/x.py", "env/"],
  [".pytest_cache/", ".pytest_cache/v/x", ".pytest_cache/"],
  ["*.egg-info/", "tool.egg-info/PKG-INFO", "tool.egg-info/"],
  [".eggs/", ".eggs/x.egg", ".eggs/"],
  ["dist/", "dist/bundle.js", "dist/"],
  ["build/", "skills/a/build/out.o", "skills/a/build/"],
  [".next/", ".next/cache/x", ".next/"],
  ["out/", "out/index.html", "out/"],
  [".nuxt/", ".nuxt/x.js", ".nuxt/"],
  [".vscode/", ".vscode/settings.json", ".vscode/"],
  [".idea/", ".idea/workspace.xml", ".idea/"],
  ["*.suo", "app.suo", "app.suo"],
  ["*.ntvs*", "app.ntvs_analysis.dat", "app.ntvs_analysis.dat"],
  ["*.njsproj", "app.njsproj", "app.njsproj"],
  ["*.sln", "app.sln", "app.sln"],
  ["*.swp", "skills/a/.SKILL.md.swp", "skills/a/.SKILL.md.swp"],
  ["*.swo", "skills/a/.x.swo", "skills/a/.x.swo"],
  [".DS_Store", "skills/.DS_Store", "skills/.DS_Store"],
  [".DS_Store?", ".DS_Store1", ".DS_Store1"],
  ["._*", "skills/a/._SKILL.md", "skills/a/._SKILL.md"],
  ["__MACOSX/", "__MACOSX/x", "__MACOSX/"],
  ["Thumbs.db", "assets/Thumbs.db", "assets/Thumbs.db"],
  ["ehthumbs.db", "ehthumbs.db", "ehthumbs.db"],
  ["desktop.ini", "desktop.ini", "desktop.ini"],
  ...[
    "mp4",
    "avi",
    "mkv",
    "mov",
    "mp3",
    "wav",
    "flac",
    "tgz",
    "tar",
    "tar.gz",
    "rar",
    "7z",
    "exe",
    "dll",
    "so",
    "dylib",
    "dmg",
    "pkg",
    "iso",
  ].map((ext): [string, string, string] => [`*.${ext}`, `skills/a/assets/file.${ext}`, `skills/a/assets/file.${ext}`]),
  ["*.log", "debug.log", "debug.log"],
  ["npm-debug.log*", "npm-debug.log.1", "npm-debug.log.1"],
  ["yarn-debug.log*", "yarn-debug.log.2", "yarn-debug.log.2"],
  ["yarn-error.log*", "yarn-error.log.3", "yarn-error.log.3"],
  ["pnpm-debug.log*", "pnpm-debug.log.4", "pnpm-debug.log.4"],
];

describe("default exclusions (FastGPT's list)", () => {
  it("has a row in this table for every built-in pattern", () => {
    expect([...new Set(DEFAULT_TABLE.map(([p]) => p))].sort()).toEqual([...DEFAULT_EXCLUSIONS].sort());
  });

  it.each(DEFAULT_TABLE)("%s excludes %s", async (pattern, file, shown) => {
    await writeTree(dir, { "skills/a/SKILL.md": skillMd("a"), [file]: "x" });
    const { files, excluded } = await collect();
    expect(files.map((f) => f.path)).toEqual(["skills/a/SKILL.md"]);
    expect(excluded).toHaveLength(1);
    expect(excluded[0]?.path).toBe(shown);
    expect(excluded[0]?.reason).toContain(`(${pattern})`);
  });

  it("leaves look-alikes in", async () => {
    const keep = [
      "skills/a/build.md",
      "skills/a/distance.py",
      "skills/a/out.txt",
      "skills/a/env.py",
      "skills/a/logs.md",
      "skills/a/file.mp4.md",
    ];
    await writeTree(dir, Object.fromEntries([["skills/a/SKILL.md", skillMd("a")], ...keep.map((k) => [k, "x"])]));
    const { files, excluded } = await collect();
    expect(excluded).toEqual([]);
    expect(files.map((f) => f.path).sort()).toEqual([...keep, "skills/a/SKILL.md"].sort());
  });
});

describe("secrets (core's one list, decision 0255)", () => {
  it.each(SECRET_FILE_CASES)(
    "%s is excluded as a secret (%s), also inside a skill folder",
    async (file, pattern, shown) => {
      await writeTree(dir, {
        "skills/a/SKILL.md": skillMd("a"),
        [file]: "TOKEN=hunter2",
        [`skills/a/${file}`]: "TOKEN=hunter2",
      });
      const { files, excluded } = await collect();
      expect(files.map((f) => f.path)).toEqual(["skills/a/SKILL.md"]);
      expect(excluded).toHaveLength(2);
      expect(excluded).toEqual(
        expect.arrayContaining([
          { path: shown, reason: `secret (${pattern})` },
          { path: `skills/a/${shown}`, reason: `secret (${pattern})` },
        ]),
      );
    },
  );

  it("keeps the look-alikes and templates", async () => {
    await writeTree(
      dir,
      Object.fromEntries([["skills/a/SKILL.md", skillMd("a")], ...NOT_SECRET_FILES.map((f) => [`skills/a/${f}`, "x"])]),
    );
    const { files, excluded } = await collect();
    expect(excluded).toEqual([]);
    expect(files).toHaveLength(NOT_SECRET_FILES.length + 1);
  });

  it("excludes a service-account key by its content, whatever its name", async () => {
    await writeTree(dir, {
      "skills/a/SKILL.md": skillMd("a"),
      "skills/a/data/project.json": SERVICE_ACCOUNT_KEY,
      "skills/a/data/other.json": "{}",
    });
    const { files, excluded } = await collect();
    expect(files.map((f) => f.path)).toEqual(["skills/a/SKILL.md", "skills/a/data/other.json"]);
    expect(excluded).toEqual([{ path: "skills/a/data/project.json", reason: "secret (service-account key)" }]);
  });

  it("a .gitignore negation does not bring a secret back", async () => {
    await writeTree(dir, {
      "skills/a/SKILL.md": skillMd("a"),
      ".gitignore": "!.npmrc\n!secrets.yaml\n",
      ".npmrc": "save-exact=true\n",
      "secrets.yaml": "a: b\n",
    });
    const { files } = await collect();
    expect(files.map((f) => f.path)).toEqual([".gitignore", "skills/a/SKILL.md"]);
  });

  it("includeSecrets brings them back", async () => {
    await writeTree(dir, {
      "skills/a/SKILL.md": skillMd("a"),
      ".env": "A=1",
      "x.pem": "k",
      ".npmrc": "_auth=abc\n",
      "k.json": SERVICE_ACCOUNT_KEY,
    });
    const { files, excluded } = await collect({ includeSecrets: true });
    expect(files.map((f) => f.path)).toEqual([".env", ".npmrc", "k.json", "skills/a/SKILL.md", "x.pem"]);
    expect(excluded).toEqual([]);
  });
});

describe(".gitignore semantics", () => {
  it("applies comments, negation, **, anchoring and directory patterns from the root file", async () => {
    await writeTree(dir, {
      ".gitignore": ["# comment line", "*.csv", "!keep.csv", "**/tmp/", "/notes.md", "data/", "\\#literal", ""].join(
        "\n",
      ),
      "skills/a/SKILL.md": skillMd("a"),
      "skills/a/x.csv": "1",
      "skills/a/keep.csv": "1",
      "skills/a/deep/tmp/t.txt": "1",
      "notes.md": "root only",
      "skills/a/notes.md": "kept: anchored pattern",
      "skills/a/data/d.txt": "dir pattern",
      "skills/a/data.txt": "not a dir",
      "#literal": "escaped hash",
      "# comment line": "not a pattern",
    });
    const { files, excluded } = await collect();
    expect(files.map((f) => f.path)).toEqual([
      "# comment line",
      ".gitignore",
      "skills/a/SKILL.md",
      "skills/a/data.txt",
      "skills/a/keep.csv",
      "skills/a/notes.md",
    ]);
    expect(excluded).toEqual([
      { path: "#literal", reason: ".gitignore (\\#literal)" },
      { path: "notes.md", reason: ".gitignore (/notes.md)" },
      { path: "skills/a/data/", reason: ".gitignore (data/)" },
      { path: "skills/a/deep/tmp/", reason: ".gitignore (**/tmp/)" },
      { path: "skills/a/x.csv", reason: ".gitignore (*.csv)" },
    ]);
  });

  it("reads nested .gitignore files relative to their directory, deepest last word", async () => {
    await writeTree(dir, {
      ".gitignore": "*.tmp\n",
      "skills/a/SKILL.md": skillMd("a"),
      "skills/a/.gitignore": "/local.md\n!keep.tmp\n",
      "skills/a/local.md": "x",
      "skills/a/sub/local.md": "anchored to skills/a only",
      "skills/a/keep.tmp": "re-included by the nested file",
      "skills/a/drop.tmp": "x",
      "local.md": "the nested rule does not reach up",
    });
    const { files, excluded } = await collect();
    expect(files.map((f) => f.path)).toEqual([
      ".gitignore",
      "local.md",
      "skills/a/.gitignore",
      "skills/a/SKILL.md",
      "skills/a/keep.tmp",
      "skills/a/sub/local.md",
    ]);
    expect(excluded).toEqual([
      { path: "skills/a/drop.tmp", reason: ".gitignore (*.tmp)" },
      { path: "skills/a/local.md", reason: "skills/a/.gitignore (/local.md)" },
    ]);
  });

  it("lets a nested negation re-include a directory the root file excludes (git's layering)", async () => {
    await writeTree(dir, {
      ".gitignore": "sub\n",
      "skills/a/SKILL.md": skillMd("a"),
      "d1/.gitignore": "!d1/*\n",
      "d1/d1/sub/x.txt": "kept",
      "d1/sub/y.txt": "out",
    });
    const { files, excluded } = await collect();
    expect(files.map((f) => f.path)).toEqual([".gitignore", "d1/.gitignore", "d1/d1/sub/x.txt", "skills/a/SKILL.md"]);
    expect(excluded).toEqual([{ path: "d1/sub/", reason: ".gitignore (sub)" }]);
  });

  it("lets a negation re-include a non-protected default (dist/), never secrets or dependency dirs", async () => {
    await writeTree(dir, {
      ".gitignore": "!dist/\n!.env\n!*.pem\n!node_modules/\n!__pycache__/\n!.git/\n",
      "skills/a/SKILL.md": skillMd("a"),
      "dist/app.js": "ok",
      ".env": "SECRET=1",
      "k.pem": "key",
      "node_modules/x/i.js": "dep",
      "skills/a/__pycache__/m.pyc": "cache",
      ".git/HEAD": "ref",
    });
    const { files, excluded } = await collect();
    expect(files.map((f) => f.path)).toEqual([".gitignore", "dist/app.js", "skills/a/SKILL.md"]);
    expect(excluded).toEqual([
      { path: ".env", reason: "secret (.env)" },
      { path: ".git/", reason: "secret (.git)" },
      { path: "k.pem", reason: "secret (*.pem)" },
      { path: "node_modules/", reason: "dependency or cache (node_modules/)" },
      { path: "skills/a/__pycache__/", reason: "dependency or cache (__pycache__/)" },
    ]);
  });

  it.each(["a[1]", "#x", "!y", "st*r"])("treats a nested .gitignore's directory name %s literally", async (name) => {
    await writeTree(dir, {
      "skills/a/SKILL.md": skillMd("a"),
      [`${name}/.gitignore`]: "*.tmp\n",
      [`${name}/t.tmp`]: "x",
      [`${name}/keep.md`]: "x",
      "a1/t.tmp": "x",
    });
    const { files, excluded } = await collect();
    expect(files.map((f) => f.path).sort()).toEqual(
      [`${name}/.gitignore`, `${name}/keep.md`, "a1/t.tmp", "skills/a/SKILL.md"].sort(),
    );
    expect(excluded).toEqual([{ path: `${name}/t.tmp`, reason: `${name}/.gitignore (*.tmp)` }]);
  });

  it("cannot re-include a file below an excluded directory (git's rule)", async () => {
    await writeTree(dir, {
      ".gitignore": "cache/\n!cache/keep.txt\n",
      "skills/a/SKILL.md": skillMd("a"),
      "cache/keep.txt": "x",
    });
    const { files, excluded } = await collect();
    expect(files.map((f) => f.path)).toEqual([".gitignore", "skills/a/SKILL.md"]);
    expect(excluded).toEqual([{ path: "cache/", reason: ".gitignore (cache/)" }]);
  });

  it("judges a symbolic link by the rules before refusing it", async () => {
    await writeTree(dir, { "skills/a/SKILL.md": skillMd("a") });
    await symlink("/nonexistent", path.join(dir, "node_modules"));
    const { excluded } = await collect();
    expect(excluded).toEqual([{ path: "node_modules", reason: "dependency or cache (node_modules/)" }]);
  });

  it("ExclusionRules.check reports the deciding layer", () => {
    const rules = new ExclusionRules({ rootGitignore: "*.md\n!README.md\n" });
    rules.addNested("skills/a", "!notes.md\n");
    expect(rules.check("x.md", false)).toEqual({ kind: "gitignore", reason: ".gitignore (*.md)" });
    expect(rules.check("README.md", false)).toBeUndefined();
    expect(rules.check("skills/a/notes.md", false)).toBeUndefined();
    expect(rules.check("skills/b/notes.md", false)).toEqual({ kind: "gitignore", reason: ".gitignore (*.md)" });
    expect(rules.check("build", true)).toEqual({ kind: "default", reason: "default (build/)" });
    expect(rules.check("build", false)).toBeUndefined();
  });
});
