// Re-creates the retrieval corpus from local checkouts of the public skill repositories that corpus.json names.
// Only references (repository, commit, path) are kept in this repository; the texts come from your checkouts.
//
//   node bench/retrieval/make-corpus.mjs --out /tmp/retrieval-corpus owner/name=/path/to/checkout …
//
// A checkout may be a work tree (its files are read at that commit with `git show` when it is a git repository,
// else straight from disk) or a bare git directory. Every repository becomes one skills root,
// <out>/<owner>__<name>/<skill-id>/SKILL.md, where the id is the folder holding SKILL.md.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const checkouts = new Map();
  let out;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--out") out = argv[++i];
    else if (arg.includes("=")) {
      const [repo, dir] = arg.split("=", 2);
      checkouts.set(repo, path.resolve(dir));
    } else throw new Error(`unexpected argument ${JSON.stringify(arg)} (want --out DIR and owner/name=CHECKOUT pairs)`);
  }
  if (!out) throw new Error("--out DIR is required");
  return { out: path.resolve(out), checkouts };
}

function isGit(dir) {
  try {
    execFileSync("git", ["-C", dir, "rev-parse", "--git-dir"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** One file at the recorded commit: `git show` when the checkout is a repository, else the file on disk. */
function reader(dir, commit) {
  if (isGit(dir)) {
    return (file) => execFileSync("git", ["-C", dir, "show", `${commit}:${file}`], { maxBuffer: 64 * 1024 * 1024 });
  }
  return (file) => readFileSync(path.join(dir, file));
}

export function sourceRootName(repo) {
  return repo.replace("/", "__");
}

export function makeCorpus(out, checkouts, corpus = JSON.parse(readFileSync(path.join(here, "corpus.json"), "utf8"))) {
  const written = [];
  for (const source of corpus.sources) {
    const dir = checkouts.get(source.repo);
    if (!dir) throw new Error(`no checkout given for ${source.repo} (pass ${source.repo}=/path/to/checkout)`);
    if (!existsSync(dir)) throw new Error(`checkout of ${source.repo} not found: ${dir}`);
    const read = reader(dir, source.commit);
    const root = path.join(out, sourceRootName(source.repo));
    for (const file of source.paths) {
      const id = path.posix.basename(path.posix.dirname(file));
      mkdirSync(path.join(root, id), { recursive: true });
      writeFileSync(path.join(root, id, "SKILL.md"), read(file));
      written.push(`${source.repo}:${id}`);
    }
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { out, checkouts } = parseArgs(process.argv.slice(2));
  const written = makeCorpus(out, checkouts);
  console.log(`${written.length} skills written under ${out}`);
}
