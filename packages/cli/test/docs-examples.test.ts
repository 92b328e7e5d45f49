// Every TypeScript example in docs/*.md (a ```ts block) is compiled by one tsc run (strict, nodenext) against the
// built workspace packages and then run, each block as its own child process in its own folder, with the fixtures it
// needs (a skills folder, a package, a built plugin, a git repository) prepared there. Its `// → …` comments are what
// it prints, line by line (`…` stands for any text, a bare `// →` for an empty line); a block without them prints
// nothing. A ```ts compile-only block is compiled but not run (decision 0275). Needs `npm run build` first.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPlugin, createPlugin } from "@skillport/plugin-host";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const docsDir = path.join(repo, "docs");

interface Block {
  doc: string;
  index: number; // 1-based, within its doc
  line: number; // the fence's line in the doc
  code: string;
  compileOnly: boolean;
  slug: string;
}

/** The ```ts blocks of one Markdown text; any other TypeScript-looking fence is an error (it would escape the test). */
function blocksOf(doc: string, text: string): Block[] {
  const blocks: Block[] = [];
  const fence = /^ *```([^\n`]*)\n([\s\S]*?)^ *```$/gm;
  for (const m of text.matchAll(fence)) {
    const info = (m[1] ?? "").trim();
    const line = text.slice(0, m.index).split("\n").length;
    if (/^(typescript|tsx?|js|javascript|mjs)\b/.test(info) && info !== "ts" && info !== "ts compile-only") {
      throw new Error(`${doc}:${line}: a block marked "${info}"; mark it \`ts\` or \`ts compile-only\` to test it`);
    }
    if (info !== "ts" && info !== "ts compile-only") continue;
    const index = blocks.length + 1;
    const slug = `${doc.replace(/\.md$/, "")}-${index}`;
    blocks.push({ doc, index, line, code: m[2] ?? "", compileOnly: info === "ts compile-only", slug });
  }
  return blocks;
}

/** What a block says it prints: one line per `// → text` comment, in order; `…` matches any text. */
function expectedOutput(code: string): RegExp | undefined {
  // A bare `// →` is an empty line.
  const lines = [...code.matchAll(/\/\/ →(?: (.*))?$/gm)].map((m) => (m[1] ?? "").trimEnd());
  if (lines.length === 0) return undefined;
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${lines.map((l) => l.split("…").map(escape).join("[\\s\\S]*?")).join("\n")}\n$`);
}

// ---- fixtures: what a block's folder holds before it runs ---------------------------------------------------------

const write = (file: string, text: string) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};
const gitConfig = ["-c", "user.name=docs", "-c", "user.email=docs@example.com", "-c", "init.defaultBranch=main"];
const git = (cwd: string, ...args: string[]) => execFileSync("git", [...gitConfig, ...args], { cwd, stdio: "pipe" });
const skillMd = (name: string, description: string, body = "") =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

const fixtures = {
  /** ./skills/pdf (with references/forms.md) and ./skills/csv-insights. */
  skills(dir: string) {
    const pdf = skillMd("pdf", "Fill and merge PDF forms.", "# PDF\n\nUse references/forms.md.\n");
    write(path.join(dir, "skills/pdf/SKILL.md"), pdf);
    write(path.join(dir, "skills/pdf/references/forms.md"), "# Forms\n");
    write(path.join(dir, "skills/csv-insights/SKILL.md"), skillMd("csv-insights", "Summarise a CSV file.", "# CSV\n"));
  },
  /** ./package: the repository's examples/package. */
  package(dir: string) {
    cpSync(path.join(repo, "examples/package"), path.join(dir, "package"), { recursive: true });
  },
  /** ./skills-repo: a git repository whose `catalog/` folder holds one skill, tagged v2. */
  gitRepo(dir: string) {
    const root = path.join(dir, "skills-repo");
    write(path.join(root, "catalog/pdf/SKILL.md"), skillMd("pdf", "Fill and merge PDF forms.", "# PDF\n"));
    git(dir, "init", "-q", root);
    git(root, "add", ".");
    git(root, "commit", "-q", "-m", "skills");
    git(root, "tag", "v2");
  },
  /** The working folder is a git root with ./.agents/skills; the user's home (./home) has .claude/skills. */
  roots(dir: string) {
    git(dir, "init", "-q", ".");
    write(path.join(dir, ".agents/skills/pdf/SKILL.md"), skillMd("pdf", "Fill PDF forms."));
    write(path.join(dir, "home/.claude/skills/notes/SKILL.md"), skillMd("notes", "Take notes."));
  },
  /** ./node_modules/@acme/skills: an npm package with skills/pdf. */
  npm(dir: string) {
    const root = path.join(dir, "node_modules/@acme/skills");
    write(path.join(root, "package.json"), JSON.stringify({ name: "@acme/skills", version: "1.0.0" }));
    write(path.join(root, "skills/pdf/SKILL.md"), skillMd("pdf", "Fill PDF forms."));
  },
  /** ./my-plugin: the tool-suite template, built to ./my-plugin/dist. */
  async plugin(dir: string) {
    await createPlugin({ name: "my-plugin", type: "tool-suite", cwd: dir });
    await buildPlugin({ entry: path.join(dir, "my-plugin"), output: path.join(dir, "my-plugin/dist") });
  },
} satisfies Record<string, (dir: string) => void | Promise<void>>;

/** Which fixtures each block needs, by `<doc>#<n>`. */
const needs: Record<string, (keyof typeof fixtures)[]> = {
  "filesystem-provider.md#1": ["skills"],
  "filesystem-provider.md#3": ["roots"],
  "filesystem-provider.md#4": ["skills"],
  "plugin-host.md#1": ["plugin"],
  "runtime.md#1": ["package"],
  "safe-paths.md#2": ["skills"],
  "safe-paths.md#3": ["skills"],
  "skill-md.md#1": ["skills"],
  "sources.md#1": ["gitRepo"],
  "sources.md#3": ["npm"],
};

// ---- the run ------------------------------------------------------------------------------------------------------

const docs = readdirSync(docsDir)
  .filter((name) => name.endsWith(".md"))
  .sort();
const blocks = docs.flatMap((doc) => blocksOf(doc, readFileSync(path.join(docsDir, doc), "utf8")));
// Inside the repository, so `@skillport/*` resolve to the workspace packages' built dist.
const work = mkdtempSync(path.join(repo, "packages/cli/test/.docs-examples-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const tscBin = path.join(repo, "node_modules/typescript/bin/tsc");
let diagnostics = "";

beforeAll(() => {
  for (const block of blocks) write(path.join(work, block.slug, "example.ts"), `${block.code}\nexport {};\n`);
  writeFileSync(
    path.join(work, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        ...{ target: "ES2023", module: "nodenext", moduleResolution: "nodenext", strict: true },
        ...{ rootDir: ".", outDir: "out", skipLibCheck: true, types: ["node"] },
      },
      include: ["*/example.ts"],
    }),
  );
  const tsc = spawnSync(process.execPath, [tscBin, "-p", ".", "--pretty", "false"], {
    cwd: work,
    encoding: "utf8",
  });
  diagnostics = tsc.stdout + tsc.stderr;
}, 300_000);

const run = promisify(execFile);
const byDoc = new Map<string, Block[]>();
for (const block of blocks) byDoc.set(block.doc, [...(byDoc.get(block.doc) ?? []), block]);

describe("docs/*.md TypeScript examples compile and run", () => {
  it("finds the examples; every fixture entry names one of them; none is compile-only", () => {
    expect(blocks.length).toBeGreaterThan(20);
    const ids = new Set(blocks.map((b) => `${b.doc}#${b.index}`));
    expect(Object.keys(needs).filter((id) => !ids.has(id))).toEqual([]);
    expect(blocks.filter((b) => b.compileOnly).map((b) => `${b.doc}#${b.index}`)).toEqual([]);
  });

  it("reads a block's // → comments as the lines it prints", () => {
    const expected = expectedOutput("log(a); // → a is …\n// →\n// → [ 'x' ] (y)\n");
    expect("a is 1\n\n[ 'x' ] (y)\n").toMatch(expected!);
    expect("a is 1\nmore\n\n[ 'x' ] (y)\n").toMatch(expected!); // … spans lines
    expect("a is 1\n[ 'x' ] (y)\n").not.toMatch(expected!);
    expect("a is 1\n\n[ 'x' ] y\n").not.toMatch(expected!);
    expect(expectedOutput("log(a); // a comment\n")).toBeUndefined();
    expect(() => blocksOf("x.md", "```typescript\nlet a = 1;\n```\n")).toThrow(/x\.md:1: a block marked "typescript"/);
    const marked = blocksOf("x.md", "```ts compile-only\nlet a = 1;\n```\n  ```ts\n  let b;\n  ```\n");
    expect(marked.map((b) => b.compileOnly)).toEqual([true, false]);
  });

  // tsc stops at syntax errors before checking types, so one broken block can hide the others' errors: all must pass.
  it("tsc reports nothing for any block", () => {
    expect(diagnostics).toBe("");
  });

  for (const [doc, docBlocks] of byDoc) {
    it(doc, { timeout: 300_000 }, async () => {
      for (const block of docBlocks) {
        const where = `docs/${doc} block ${block.index} (line ${block.line})`;
        const errors = diagnostics.split("\n").filter((l) => l.startsWith(`${block.slug}/`));
        expect(errors, `${where} compiles`).toEqual([]);
        if (block.compileOnly) continue;
        const cwd = path.join(work, block.slug);
        for (const fixture of needs[`${doc}#${block.index}`] ?? []) await fixtures[fixture](cwd);
        const result = await run(process.execPath, [path.join(work, "out", block.slug, "example.js")], {
          cwd,
          timeout: 120_000, // a deploy runs entrypoints; the machine may be loaded
          env: { PATH: process.env.PATH ?? "", HOME: path.join(cwd, "home") },
        }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
          throw new Error(`${where} failed: ${error.message}\n${error.stdout ?? ""}${error.stderr ?? ""}`);
        });
        const expected = expectedOutput(block.code);
        expect(result.stdout, `${where} prints what its // → comments say`).toMatch(expected ?? /^$/);
      }
    });
  }
});
