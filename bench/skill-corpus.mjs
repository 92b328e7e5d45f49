// The real public skills bench/retrieval's manifests name, extracted whole from local git snapshots (never copied
// into this repository): shared by bench/audit.mjs and bench/dynamic.mjs.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { findSnapshot } from "./retrieval/make-corpus.mjs";

/** Every file under a skill folder (links are not followed), as audit input. */
export function readSkillFolder(dir) {
  const files = [];
  const walk = (rel) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const relPath = rel ? `${rel}/${name}` : name;
      const info = lstatSync(path.join(dir, relPath));
      if (info.isDirectory()) walk(relPath);
      else if (info.isFile()) files.push({ path: relPath, bytes: readFileSync(path.join(dir, relPath)) });
    }
  };
  walk("");
  return files;
}

/** `materialise(set, source)`: the skill folders of one manifest source, extracted at its commit (cached under `cache`). */
export const materialiser = (snapshots, cache) =>
  function materialise(set, source) {
    const snapshot = findSnapshot(snapshots, source.repo);
    if (!snapshot)
      return { skipped: `no snapshot of ${source.repo} under ${snapshots} (fetch it, or pass --snapshots)` };
    const dest = path.join(cache, set, `${source.repo.replace("/", "__")}@${source.commit.slice(0, 12)}`);
    const folders = [...new Set(source.paths.map((p) => path.posix.dirname(p)))];
    if (!existsSync(path.join(dest, ".done"))) {
      mkdirSync(dest, { recursive: true });
      try {
        const tar = execFileSync(
          "git",
          [
            "--git-dir",
            snapshot.endsWith("/repo") || !existsSync(path.join(snapshot, ".git"))
              ? snapshot
              : path.join(snapshot, ".git"),
            "archive",
            "--format=tar",
            source.commit,
            "--",
            ...folders,
          ],
          { maxBuffer: 1 << 30 },
        );
        execFileSync("tar", ["-x", "-C", dest], { input: tar });
      } catch (error) {
        return { skipped: `${source.repo}@${source.commit.slice(0, 12)}: ${String(error.message).split("\n")[0]}` };
      }
      writeFileSync(path.join(dest, ".done"), "");
    }
    return {
      skills: folders
        .filter((f) => existsSync(path.join(dest, f)))
        .map((f) => ({ id: `${source.repo}:${f}`, files: readSkillFolder(path.join(dest, f)) })),
    };
  };
