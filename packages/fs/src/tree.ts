import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { InvalidPathError, LimitExceededError, isSafeResourcePath, type SkillFile } from "@skillport/core";

export interface TreeLimits {
  /** Most files listed for one skill. */
  maxFiles: number;
  /** Deepest directory nesting walked below the skill directory. */
  maxDepth: number;
}

/**
 * Every file below `dirReal`, recursively: sorted POSIX paths with sizes, hidden files included. A link or a special
 * file anywhere RAISES (InvalidPathError) instead of being skipped, so a listing is never silently incomplete; so does
 * a name the shared path rules refuse (`a\b`, `c:x`), since readFile could never serve it.
 */
export async function listTree(skillId: string, dirReal: string, limits: TreeLimits): Promise<SkillFile[]> {
  const files: SkillFile[] = [];
  const walk = async (rel: string, depth: number): Promise<void> => {
    const entries = await readdir(rel === "" ? dirReal : path.join(dirReal, rel), { withFileTypes: true });
    for (const entry of entries) {
      const entryRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (!isSafeResourcePath(entryRel)) {
        throw new InvalidPathError(entryRel, `in skill ${JSON.stringify(skillId)} is not a portable, safe path; rename it`);
      }
      if (entry.isDirectory()) {
        if (depth + 1 > limits.maxDepth) {
          throw new LimitExceededError("maxDepth", `skill ${JSON.stringify(skillId)}: ${JSON.stringify(entryRel)} is nested deeper than ${limits.maxDepth} directories`);
        }
        await walk(entryRel, depth + 1);
      } else if (entry.isFile()) {
        if (files.length >= limits.maxFiles) {
          throw new LimitExceededError("maxFiles", `skill ${JSON.stringify(skillId)} has more than ${limits.maxFiles} files`);
        }
        files.push({ path: entryRel, size: 0 });
      } else {
        const what = entry.isSymbolicLink() ? "a link" : "not a regular file or directory";
        throw new InvalidPathError(entryRel, `in skill ${JSON.stringify(skillId)} is ${what}; skills listed whole may hold only regular files and directories`);
      }
    }
  };
  await walk("", 0);
  // Sizes after the walk, all at once: no lstat is left in flight when the walk throws.
  await Promise.all(
    files.map(async (file) => {
      file.size = (await lstat(path.join(dirReal, file.path))).size;
    }),
  );
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
