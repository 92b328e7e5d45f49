import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import path from "node:path";
import { InvalidPathError, LimitExceededError, SkillUnavailableError } from "@skillport/core";
import { SECRET_CONTENT_HEAD_BYTES, secretFileContent } from "@skillport/core/internal";
import {
  DEFAULT_MAX_FILE_BYTES,
  isInside,
  SKILL_FILE_NAMES,
  skillFileAmong,
  walkTree,
  type WalkProblem,
} from "@skillport/fs";
import { ExclusionRules } from "./exclusions.js";
import { formatBytes, type PackageLimits } from "./limits.js";
import { comparePaths, normalizedMode, pathDepth } from "./paths.js";

/** A file chosen for a package. `path` is POSIX and relative to the package root. */
export interface CollectedFile {
  path: string;
  size: number;
  mode: 0o755 | 0o644;
  /** Where the file is on disk, relative to the root, when that differs from `path` (`skill.md` packed as SKILL.md). */
  source?: string;
  /** Reached through a symbolic link (followed under the link rules): it is read following links inside the root. */
  viaLink?: boolean;
}

/** Something left out of a package and why. Directories end with `/`. */
export interface ExcludedEntry {
  path: string;
  reason: string;
}

export interface CollectOptions {
  limits: PackageLimits;
  includeSecrets?: boolean;
  /** Follow symbolic links that resolve inside the root; without it any link is refused. */
  followLinks?: boolean;
  /** An absolute path never to include (the archive being written, when it lies inside the root). */
  skipAbsolute?: string;
  /**
   * Where skill folders are, so links inside them follow fs's skill-directory rule (decision 0121): a link that stays
   * inside its skill is followed without `followLinks`, one leaving it (or dangling) is refused even with it.
   * `root`: the root is one skill (export); `package`: every `skills/<name>/`. Default: no skill folders.
   */
  skillFolders?: "root" | "package";
  /** Largest file inside a skill folder. Default fs's DEFAULT_MAX_FILE_BYTES (10 MiB), the one skill-file limit. */
  maxSkillFileBytes?: number;
}

export interface Collected {
  /** The package root's real path: files are read from it, confined by the opened file (`readCollected`). */
  root: string;
  files: CollectedFile[];
  excluded: ExcludedEntry[];
  totalBytes: number;
}

/**
 * Walks `rootDir` (with the one bounded walker of @skillport/fs) applying exclusions, link rules and limits. Results
 * are sorted by path in UTF-8 byte order. A followed link is judged by its target too: a harmless name pointing at
 * `.env` is left out like `.env` itself.
 */
export async function collectFiles(rootDir: string, options: CollectOptions): Promise<Collected> {
  const rootReal = realpathSync(rootDir);
  if (!statSync(rootReal).isDirectory()) throw new InvalidPathError(path.basename(rootDir), "is not a directory");
  const rules = new ExclusionRules({
    includeSecrets: options.includeSecrets,
    rootGitignore: readGitignore(path.join(rootReal, ".gitignore")),
  });
  const { limits } = options;
  const skip = options.skipAbsolute === undefined ? undefined : realTarget(options.skipAbsolute);
  const excluded: ExcludedEntry[] = [];

  const walked = walkTree(rootReal, {
    // Inside skill folders links are judged by the skill rule below, so the walker follows links inside the root.
    links: options.followLinks || options.skillFolders !== undefined ? "follow-inside" : "refuse",
    maxDepth: limits.maxDepth,
    maxFiles: limits.maxFiles,
    onProblem: "collect",
    onDirectory: (dir) => {
      if (dir.path !== "" && dir.entries.some((e) => e.name === ".gitignore" && e.isFile())) {
        rules.addNested(dir.path, readFileSync(path.join(dir.realPath, ".gitignore"), "utf8"));
      }
    },
    exclude: (rel, isDir, { link }) => {
      if (skip !== undefined && path.join(rootReal, ...rel.split("/")) === skip) return "output archive";
      // A link is judged by the rules first: a link inside node_modules/ or named .env is simply left out.
      const verdict = rules.check(rel, isDir) ?? (link ? rules.check(rel, !isDir) : undefined);
      if (verdict) return verdict.reason;
      if (!isDir && !link && !options.includeSecrets && /\.json$/i.test(rel)) {
        const shape = secretFileContent(rel, readHead(path.join(rootReal, rel)));
        if (shape !== undefined) return `secret (${shape})`;
      }
      return undefined;
    },
  });

  for (const p of walked.problems) {
    if (p.kind === "special") excluded.push({ path: p.path, reason: "not a regular file" });
    else throw problemError(p);
  }

  const files: CollectedFile[] = [];
  let totalBytes = 0;
  const skillLimit = options.maxSkillFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const skillReals = new Map<string, string | undefined>();
  /** The real path of the skill folder `entry` lies in, unless that folder is itself a link (then the package rule). */
  const skillRealOf = (rel: string): string | undefined => {
    const folder = skillFolderOf(rel, options.skillFolders);
    if (folder === undefined) return undefined;
    if (!skillReals.has(folder)) {
      const abs = path.join(rootReal, ...folder.split("/").filter(Boolean));
      skillReals.set(folder, folder !== "" && lstatSync(abs).isSymbolicLink() ? undefined : realpathSync(abs));
    }
    return skillReals.get(folder);
  };
  for (const entry of walked.entries) {
    if (entry.viaLink) {
      // Reached through a followed link: the target must pass the rules as well.
      const targetRel = path.relative(rootReal, entry.realPath).split(path.sep).join("/");
      const verdict = rules.check(targetRel, false);
      if (verdict) {
        excluded.push({ path: entry.path, reason: `link to ${targetRel}: ${verdict.reason}` });
        continue;
      }
    }
    if (entry.viaLink) {
      // fs's one link rule inside a skill folder; elsewhere links are followed only when asked to.
      const skillReal = skillRealOf(entry.path);
      if (skillReal !== undefined) {
        if (!isInside(skillReal, entry.realPath))
          throw new InvalidPathError(entry.path, "is a symbolic link (or lies below one) that leads outside the skill");
      } else if (!options.followLinks) {
        throw new InvalidPathError(
          entry.path,
          "is a symbolic link (or lies below one; pass followLinks / --follow-links to include links that stay inside the package)",
        );
      }
    }
    if (pathDepth(entry.path) > limits.maxDepth) {
      throw new LimitExceededError("maxDepth", `${entry.path} is nested deeper than ${limits.maxDepth} levels`);
    }
    if (entry.size > limits.maxFileBytes) {
      throw new LimitExceededError(
        "maxFileBytes",
        `${entry.path} is ${formatBytes(entry.size)}, over the ${formatBytes(limits.maxFileBytes)} per-file limit`,
      );
    }
    // A skill's own files have the one skill-directory limit: what no provider would serve is not packed either.
    if (skillFolderOf(entry.path, options.skillFolders) !== undefined && entry.size > skillLimit) {
      throw new LimitExceededError(
        "maxFileBytes",
        `${entry.path} is ${formatBytes(entry.size)}, over the ${formatBytes(skillLimit)} limit for a skill's files`,
      );
    }
    totalBytes += entry.size;
    if (totalBytes > limits.maxTotalBytes) {
      throw new LimitExceededError(
        "maxTotalBytes",
        `the package is larger than ${formatBytes(limits.maxTotalBytes)} uncompressed`,
      );
    }
    files.push({
      path: entry.path,
      size: entry.size,
      mode: normalizedMode(entry.path, entry.mode),
      ...(entry.viaLink ? { viaLink: true } : {}),
    });
  }
  for (const e of walked.excluded) excluded.push(e);
  files.sort((a, b) => comparePaths(a.path, b.path));
  excluded.sort((a, b) => comparePaths(a.path, b.path));
  return { root: rootReal, files, excluded, totalBytes };
}

/** The walker's problem as pack has always reported it. */
function problemError(p: WalkProblem): Error {
  switch (p.kind) {
    case "limit":
      return new LimitExceededError(
        p.limit ?? "maxFiles",
        p.limit === "maxFiles"
          ? `the package has more than ${p.message.replace(/^more than /, "")}`
          : `${p.path} ${p.message}`,
      );
    case "unreadable":
      return new SkillUnavailableError(p.message);
    case "link":
      return new InvalidPathError(
        p.path,
        "is a symbolic link (pass followLinks / --follow-links to include links that stay inside the package)",
      );
    case "link-outside":
      return new InvalidPathError(p.path, "is a symbolic link that points outside the package");
    case "link-dangling":
      return new InvalidPathError(p.path, "is a dangling symbolic link");
    case "link-loop":
      return new InvalidPathError(p.path, "is a symbolic link loop");
    default:
      return new InvalidPathError(p.path, p.message);
  }
}

/**
 * Renames each skill folder's skill file to `SKILL.md` where fs's one file-name rule picks another (`skill.md` when the
 * folder has no SKILL.md; decision 0124), keeping the name on disk in `source`. `layout` says where skill folders are,
 * as for `collectFiles`. Keeps the list sorted.
 */
export function canonicalSkillFiles(files: CollectedFile[], layout: NonNullable<CollectOptions["skillFolders"]>): void {
  const present = new Set(files.map((f) => f.path));
  const canonical = SKILL_FILE_NAMES[0];
  let renamed = false;
  for (const file of files) {
    const found = skillFolderOf(file.path, layout);
    const folder = found === undefined || found === "" ? found : `${found}/`;
    if (folder === undefined || file.path === `${folder}${canonical}`) continue;
    if (file.path === `${folder}${skillFileAmong((name) => present.has(`${folder}${name}`))}`) {
      file.source = file.path;
      file.path = `${folder}${canonical}`;
      renamed = true;
    }
  }
  if (renamed) files.sort((a, b) => comparePaths(a.path, b.path));
}

/** The skill folder (relative, `""` for the root) that `rel` lies in, if any. */
function skillFolderOf(rel: string, layout: CollectOptions["skillFolders"]): string | undefined {
  if (layout === "root") return "";
  if (layout === "package") {
    const parts = rel.split("/");
    return parts[0] === "skills" && parts.length > 2 ? `skills/${parts[1]}` : undefined;
  }
  return undefined;
}

function readGitignore(file: string): string | undefined {
  try {
    return lstatSync(file).isFile() ? readFileSync(file, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The first bytes of a regular file, for the content rule (a service-account key is a few KB). Never follows a link
 * or waits on a FIFO; anything else (or a file gone meanwhile) reads as empty and is judged by the walk as usual.
 */
function readHead(file: string): Uint8Array {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return new Uint8Array(0);
  }
  try {
    if (!fstatSync(fd).isFile()) return new Uint8Array(0);
    const buffer = Buffer.alloc(SECRET_CONTENT_HEAD_BYTES);
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** The real path a file would have (its directory resolved), whether or not it exists yet. */
function realTarget(file: string): string | undefined {
  const absolute = path.resolve(file);
  try {
    return path.join(realpathSync(path.dirname(absolute)), path.basename(absolute));
  } catch {
    return undefined; // its directory does not exist, so it cannot be inside the package
  }
}
