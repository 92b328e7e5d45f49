// The digest of the code that decides an audit's findings (decision 0428): the audit's own sources and the parts of
// core it reads a SKILL.md with. src/code-digest.ts keeps it as a constant, so a cached verdict is keyed by the exact
// rules that produced it; src/code-digest.test.ts fails when a source changed and the constant did not.
//   node packages/audit/scripts/code-digest.mjs          prints it
//   node packages/audit/scripts/code-digest.mjs --write  rewrites src/code-digest.ts
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const audit = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const core = path.resolve(audit, "../core");
const CONSTANT_FILE = path.join(audit, "src/code-digest.ts");

/** The source files the digest covers, repository-relative and sorted: no tests, not the constant's own file. */
export function auditCodeFiles() {
  const sources = (dir) =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".d.ts") && !f.includes("__"))
      .map((f) => path.join(dir, f));
  const files = [
    ...sources(path.join(audit, "src")).filter((f) => f !== CONSTANT_FILE),
    // auditSkill reads the frontmatter with core's parser and its declaration reader.
    path.join(core, "src/parse.ts"),
    path.join(core, "src/declaration.ts"),
    ...sources(path.join(core, "src/format")),
  ];
  return files.map((f) => path.relative(path.resolve(audit, "../.."), f).split(path.sep).join("/")).sort();
}

/** sha256 over each covered file's path and text, first 16 hex digits. */
export function auditCodeDigest() {
  const repo = path.resolve(audit, "../..");
  const hash = createHash("sha256");
  for (const file of auditCodeFiles()) hash.update(`${file}\0${readFileSync(path.join(repo, file), "utf8")}\0`);
  return hash.digest("hex").slice(0, 16);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const digest = auditCodeDigest();
  if (process.argv.includes("--write")) {
    writeFileSync(
      CONSTANT_FILE,
      [
        "// Written by packages/audit/scripts/code-digest.mjs --write: the digest of the audit's code (decision 0428).",
        "// A verdict cached under it was produced by exactly this code; src/code-digest.test.ts keeps it current.",
        `export const AUDIT_CODE_DIGEST = "${digest}";`,
        "",
      ].join("\n"),
    );
  }
  console.log(digest);
}
