// Re-creates a retrieval corpus from local checkouts of the public skill repositories its corpus.json names.
// Only references (repository, commit, path) are kept in this repository; the texts come from your checkouts.
//
//   node bench/retrieval/make-corpus.mjs --out /tmp/retrieval-corpus owner/name=/path/to/checkout …
//   node bench/retrieval/make-corpus.mjs --set heldout --out /tmp/heldout --snapshots DIR
//
// Sets (SETS below): "main" (corpus.json and queries.json here), "copilot" and "heldout" (their own folders).
// --snapshots DIR finds each repository's checkout as DIR/<owner>+<name>/repo, DIR/<owner>+<name> or
// DIR/<owner>__<name> (a bare git directory or a work tree); owner/name=CHECKOUT pairs override it.
//
// A checkout may be a work tree (its files are read at that commit with `git show` when it is a git repository,
// else straight from disk) or a bare git directory. Every repository becomes one skills root,
// <out>/<owner>__<name>/<skill-id>/SKILL.md, where the id is the folder holding SKILL.md.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Each labelled set: its manifest of skills and its queries. Only "main" and "copilot" may be tuned on. */
export const SETS = {
  main: { dir: here, role: "tune" },
  copilot: { dir: path.join(here, "copilot"), role: "tune" },
  heldout: { dir: path.join(here, "heldout"), role: "report" },
};

export function setFile(set, file) {
  const entry = SETS[set];
  if (!entry) throw new Error(`unknown set ${JSON.stringify(set)} (want ${Object.keys(SETS).join(", ")})`);
  return path.join(entry.dir, file);
}

export function readSet(set) {
  return {
    corpus: JSON.parse(readFileSync(setFile(set, "corpus.json"), "utf8")),
    queries: JSON.parse(readFileSync(setFile(set, "queries.json"), "utf8")).queries,
  };
}

/** The checkout of `repo` under a folder of snapshots, or undefined. */
export function findSnapshot(snapshots, repo) {
  const [owner, name] = repo.split("/");
  for (const dir of [
    path.join(snapshots, `${owner}+${name}`, "repo"),
    path.join(snapshots, `${owner}+${name}`),
    path.join(snapshots, `${owner}__${name}`),
  ]) {
    if (existsSync(dir)) return dir;
  }
  return undefined;
}

function parseArgs(argv) {
  const checkouts = new Map();
  let out;
  let set = "main";
  let snapshots;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--out") out = argv[++i];
    else if (arg === "--set") set = argv[++i];
    else if (arg === "--snapshots") snapshots = argv[++i];
    else if (arg.includes("=")) {
      const [repo, dir] = arg.split("=", 2);
      checkouts.set(repo, path.resolve(dir));
    } else throw new Error(`unexpected argument ${JSON.stringify(arg)} (want --out DIR and owner/name=CHECKOUT pairs)`);
  }
  if (!out) throw new Error("--out DIR is required");
  const { corpus } = readSet(set);
  if (snapshots !== undefined) {
    for (const source of corpus.sources) {
      const found = checkouts.has(source.repo) ? undefined : findSnapshot(path.resolve(snapshots), source.repo);
      if (found) checkouts.set(source.repo, found);
    }
  }
  return { out: path.resolve(out), checkouts, corpus };
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

export function makeCorpus(out, checkouts, corpus = readSet("main").corpus) {
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
  const { out, checkouts, corpus } = parseArgs(process.argv.slice(2));
  const written = makeCorpus(out, checkouts, corpus);
  console.log(`${written.length} skills written under ${out}`);
}
