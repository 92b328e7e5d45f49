import fs, { type Stats } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { parseFrontmatter, type Diagnostic, type Frontmatter, type ParseLimits, type SkillFile } from "@skillport/core";
import { DEFAULT_PARSE_LIMITS } from "@skillport/core/internal";
import { DEFAULT_MAX_FILE_BYTES, SKILL_FILE_NAMES, type SkillFileName } from "../floor/file-limits.js";
import { descriptorReader } from "../floor/files.js";
import { readHead } from "./frontmatter-head.js";
import { isInside, joinReal } from "../floor/confine.js";
import { errorCode, isMissing } from "../floor/errno.js";
import { openConfined, openVerified, type ConfinedFile } from "../floor/open-confined.js";
import { walkTree, type WalkProblem } from "../floor/walk.js";

export const DEFAULT_MAX_LIST_FILES = 10_000;
export const DEFAULT_MAX_LIST_DEPTH = 32;

/** Why a folder is not (or not wholly) served as a skill. Codes are stable; messages name relative paths only. */
export interface SkillProblem {
  code: SkillProblemCode;
  severity: Diagnostic["severity"];
  message: string;
  /** Relative to the skill folder (`""` for the folder itself), POSIX. */
  path: string;
}

export type SkillProblemCode =
  | "skill-md-missing"
  | "skill-md-link-outside"
  | "skill-md-link-dangling"
  | "skill-md-not-file"
  | "skill-dir-link-outside"
  | "skill-dir-not-directory"
  | "skill-id-unsafe"
  | "skill-id-not-utf8"
  | "skill-unreadable"
  | "file-link-outside"
  | "file-link-dangling"
  | "file-link-loop"
  | "file-not-regular"
  | "file-name-unsafe"
  | "file-name-not-utf8"
  | "file-too-large"
  | "file-unreadable"
  | "files-limit";

export interface SkillDirectoryOptions {
  /** Largest file served (SKILL.md or any other), in bytes; exactly this size passes. Default 10 MiB. */
  maxFileBytes?: number;
  /** Most files `listFiles` returns. Default 10,000. */
  maxListFiles?: number;
  /** Deepest directory nesting `listFiles` walks. Default 32. */
  maxListDepth?: number;
  /** Refuse files with more than one hard link (untrusted trees; docs/decisions/0123). Default false. */
  refuseHardLinks?: boolean;
}

export type SkillProbe = { ok: true; skill: SkillDirectory } | { ok: false; problem: SkillProblem };

/** Every file of a skill, and what was refused, in "report, don't refuse" mode. */
export interface SkillInspection {
  files: SkillFile[];
  problems: SkillProblem[];
}

/**
 * One skill folder under THE skill-directory policy (docs/decisions/0121): links that stay inside the skill after
 * real-path resolution are served by every method (listed with the target's size, read, packed); links leaving the
 * skill (into a sibling skill too) and dangling links are refused by every method and reported. `dir` is the folder's
 * real path, resolved once when located: every read is confined to it by the OPENED file (openConfined), so a folder
 * swapped for a link later is "outside", not followed.
 */
export class SkillDirectory {
  /** Real path of the skill folder. */
  readonly dir: string;
  readonly file: SkillFileName;
  /** The skill file's size when probed (the target's, when it is a link inside the skill). */
  readonly size: number;
  // What the stamp needs, not the Stats object: thousands of located skills stay in memory, and a Stats (with its four
  // Dates) kept per skill made discovery's survivors several times larger (and the young generation grow with them).
  readonly #dev: number;
  readonly #ino: number;
  readonly #mtimeMs: number;
  readonly #ctimeMs: number;
  readonly maxFileBytes: number;
  readonly #options: SkillDirectoryOptions;

  /** Use `probe`: a SkillDirectory exists only for a folder that passed it. */
  protected constructor(dir: string, file: SkillFileName, stats: Stats, options: SkillDirectoryOptions) {
    this.dir = dir;
    this.file = file;
    this.size = stats.size;
    this.#dev = stats.dev;
    this.#ino = stats.ino;
    this.#mtimeMs = stats.mtimeMs;
    this.#ctimeMs = stats.ctimeMs;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.#options = options;
  }

  /**
   * Decides whether the folder at real path `dirReal` is a skill: it must hold `SKILL.md` (or `skill.md` when SKILL.md
   * is absent) that is a regular file, or a link resolving to a regular file inside the folder. Blocking calls: one
   * `lstat` in the common case (docs/decisions/0037).
   */
  static probe(dirReal: string, options: SkillDirectoryOptions = {}): SkillProbe {
    for (const file of SKILL_FILE_NAMES) {
      const target = joinReal(dirReal, file);
      let stats: Stats | undefined;
      try {
        stats = fs.lstatSync(target, { throwIfNoEntry: false });
      } catch (error) {
        return { ok: false, problem: unreadable(file, error) };
      }
      if (stats === undefined) continue;
      return SkillDirectory.#decide(
        dirReal,
        file,
        stats,
        () => {
          const real = fs.realpathSync(target);
          return { real, stats: fs.statSync(real) };
        },
        options,
      );
    }
    return { ok: false, problem: missingSkillMd() };
  }

  /** probe with asynchronous calls (network file systems; `syncReads: false`). */
  static async probeAsync(dirReal: string, options: SkillDirectoryOptions = {}): Promise<SkillProbe> {
    for (const file of SKILL_FILE_NAMES) {
      const target = path.join(dirReal, file);
      let stats: Stats;
      try {
        stats = await lstat(target);
      } catch (error) {
        if (isMissing(error)) continue;
        return { ok: false, problem: unreadable(file, error) };
      }
      let resolved: { real: string; stats: Stats } | undefined;
      if (stats.isSymbolicLink()) {
        try {
          const real = await realpath(target);
          resolved = { real, stats: await stat(real) };
        } catch {
          resolved = undefined;
        }
      }
      return SkillDirectory.#decide(
        dirReal,
        file,
        stats,
        () => {
          if (resolved === undefined) throw Object.assign(new Error("dangling"), { code: "ENOENT" });
          return resolved;
        },
        options,
      );
    }
    return { ok: false, problem: missingSkillMd() };
  }

  /**
   * Identity and change times of the skill file when probed (what a persistent metadata index is keyed by). Built on
   * demand: listings that use no index never pay for the string.
   */
  get stamp(): string {
    return `${this.#dev}:${this.#ino}:${this.size}:${this.#mtimeMs}:${this.#ctimeMs}`;
  }

  /** Absolute path of the skill file (through the folder's real path). */
  get skillMdPath(): string {
    return path.join(this.dir, this.file);
  }

  /** Opens the skill file, verified on the descriptor; the caller closes it. */
  openSkillMd(): ConfinedFile {
    // The name is one of two constants: the shared path rules need not be run on it per read.
    return openVerified(this.dir, this.file, {
      followLinksInside: true,
      refuseHardLinks: this.#options.refuseHardLinks,
      boundaryName: "the skill",
    });
  }

  /** Opens one file of the skill under the link rule, verified on the descriptor; the caller closes it. */
  openFile(relPath: string): ConfinedFile {
    return openConfined(this.dir, relPath, {
      followLinksInside: true,
      refuseHardLinks: this.#options.refuseHardLinks,
      boundaryName: "the skill",
    });
  }

  /**
   * The skill file's frontmatter, reading only up to its closing `---` (docs/decisions/0033, 0082): `frontmatter` is
   * undefined when there is none usable, and `diagnostics` say why (`file` as given). For callers that read a skill
   * once (scans); providers cache heads themselves.
   */
  async readFrontmatter(
    file: string,
    limits: Partial<ParseLimits> = {},
    headChunkBytes = 8 * 1024,
  ): Promise<{ frontmatter: Frontmatter | undefined; diagnostics: Diagnostic[] }> {
    const problem = (
      code: string,
      message: string,
      line = 0,
    ): { frontmatter: undefined; diagnostics: Diagnostic[] } => ({
      frontmatter: undefined,
      diagnostics: [{ code, severity: "error", message, file, line, column: line === 0 ? 0 : 1 }],
    });
    const opened = this.openSkillMd();
    try {
      if (opened.size > this.maxFileBytes)
        return problem(
          "skill-md-too-large",
          `${this.file} is larger than the ${this.maxFileBytes}-byte limit (maxFileBytes)`,
        );
      const maxFrontmatterBytes = limits.maxFrontmatterBytes ?? DEFAULT_PARSE_LIMITS.maxFrontmatterBytes;
      const head = await readHead(
        descriptorReader(opened.fd, true),
        this.maxFileBytes,
        headChunkBytes,
        maxFrontmatterBytes,
      );
      if (!head.ok) {
        if (head.reason === "too-large")
          return problem(
            "skill-md-too-large",
            `${this.file} is larger than the ${this.maxFileBytes}-byte limit (maxFileBytes)`,
          );
        if (head.reason === "encoding") return problem("encoding-invalid", `${this.file} is not valid UTF-8`);
        return problem(
          "frontmatter-too-large",
          `the frontmatter is larger than the limit of ${maxFrontmatterBytes} bytes`,
          2,
        );
      }
      const parsed = parseFrontmatter(head.text, { file, limits });
      return { frontmatter: parsed.frontmatter, diagnostics: [...parsed.diagnostics] };
    } finally {
      opened.close();
    }
  }

  /**
   * Every file, recursively, sorted, SKILL.md and hidden files included, links inside the skill listed at their own
   * path with the target's size. A link leaving the skill, a dangling link, a loop, a special file or an unsafe name
   * THROWS (InvalidPathError naming it): a listing is never silently incomplete. Limits throw LimitExceededError.
   */
  listFiles(): SkillFile[] {
    return walkTree(this.dir, this.#walkOptions("throw")).entries.map((e) => ({ path: e.path, size: e.size }));
  }

  /**
   * listFiles in "report, don't refuse" mode (validate): the files that are served, plus every refused entry as a
   * problem — links leaving the skill, dangling links, loops, special files, unsafe names, files over the size limit
   * (listed, since they exist, and reported), hard links when refused, and a limit that cut the listing short.
   */
  inspectFiles(options: { exclude?: (relPath: string, isDir: boolean) => string | undefined } = {}): SkillInspection {
    const walked = walkTree(this.dir, { ...this.#walkOptions("collect"), exclude: options.exclude });
    const problems = walked.problems.map(fileProblem);
    const files: SkillFile[] = [];
    for (const entry of walked.entries) {
      files.push({ path: entry.path, size: entry.size });
      if (entry.size > this.maxFileBytes) {
        problems.push({
          code: "file-too-large",
          severity: "error",
          path: entry.path,
          message: `${entry.path} is larger than the ${this.maxFileBytes}-byte limit (maxFileBytes)`,
        });
      }
      if (this.#options.refuseHardLinks && entry.nlink > 1) {
        problems.push({
          code: "file-link-outside",
          severity: "error",
          path: entry.path,
          message: `${entry.path} has ${entry.nlink} hard links; files with other names are not served from this tree`,
        });
      }
    }
    return { files, problems };
  }

  static #decide(
    dirReal: string,
    file: SkillFileName,
    stats: Stats,
    resolve: () => { real: string; stats: Stats },
    options: SkillDirectoryOptions,
  ): SkillProbe {
    if (stats.isFile()) return { ok: true, skill: new SkillDirectory(dirReal, file, stats, options) };
    if (!stats.isSymbolicLink()) {
      return {
        ok: false,
        problem: { code: "skill-md-not-file", severity: "error", path: file, message: `${file} is not a regular file` },
      };
    }
    let resolved: { real: string; stats: Stats };
    try {
      resolved = resolve();
    } catch (error) {
      if (isMissing(error) || errorCode(error) === "ELOOP") {
        return {
          ok: false,
          problem: {
            code: "skill-md-link-dangling",
            severity: "error",
            path: file,
            message: `${file} is a symbolic link whose target does not exist`,
          },
        };
      }
      return { ok: false, problem: unreadable(file, error) };
    }
    if (resolved.real === dirReal || !isInside(dirReal, resolved.real)) {
      return {
        ok: false,
        problem: {
          code: "skill-md-link-outside",
          severity: "error",
          path: file,
          message: `${file} is a symbolic link that leads outside the skill; links must stay inside the skill folder`,
        },
      };
    }
    if (!resolved.stats.isFile()) {
      return {
        ok: false,
        problem: {
          code: "skill-md-not-file",
          severity: "error",
          path: file,
          message: `${file} is a link to something that is not a regular file`,
        },
      };
    }
    return { ok: true, skill: new SkillDirectory(dirReal, file, resolved.stats, options) };
  }

  #walkOptions(mode: "throw" | "collect") {
    return {
      links: "follow-inside" as const,
      // The folder's real path as located: a folder swapped for a link since then is refused, not walked.
      boundary: this.dir,
      boundaryName: "the skill",
      onProblem: mode,
      maxFiles: this.#options.maxListFiles ?? DEFAULT_MAX_LIST_FILES,
      maxDepth: this.#options.maxListDepth ?? DEFAULT_MAX_LIST_DEPTH,
      // Directories are bounded by the file count and depth already; a listing only stops at a directory count far
      // beyond what those allow.
      maxDirs: Number.MAX_SAFE_INTEGER,
    };
  }
}

function missingSkillMd(): SkillProblem {
  return {
    code: "skill-md-missing",
    severity: "warning",
    path: "",
    message: "the folder has no SKILL.md, so it is not a skill",
  };
}

function unreadable(file: string, error: unknown): SkillProblem {
  return {
    code: "skill-unreadable",
    severity: "error",
    path: file,
    message: `${file} cannot be read (${errorCode(error) ?? "unknown error"})`,
  };
}

const FILE_PROBLEM: Record<WalkProblem["kind"], { code: SkillProblemCode; text: string }> = {
  link: { code: "file-link-outside", text: "is a symbolic link" },
  "link-outside": { code: "file-link-outside", text: "is a symbolic link that leads outside the skill" },
  "link-dangling": { code: "file-link-dangling", text: "is a symbolic link whose target does not exist" },
  "link-loop": { code: "file-link-loop", text: "is a symbolic link loop" },
  special: { code: "file-not-regular", text: "is not a regular file or directory (a device, socket or FIFO)" },
  "unsafe-name": { code: "file-name-unsafe", text: "is not a portable, safe path; rename it" },
  "name-not-utf8": { code: "file-name-not-utf8", text: "is not valid UTF-8 (bad bytes shown as \\xHH); rename it" },
  unreadable: { code: "file-unreadable", text: "cannot be read" },
  limit: { code: "files-limit", text: "" },
};

/** A walk problem as a skill problem: the same wording whoever reports it. */
export function fileProblem(problem: WalkProblem): SkillProblem {
  const { code, text } = FILE_PROBLEM[problem.kind];
  const message =
    problem.kind === "limit"
      ? `the listing stopped: ${problem.path === "" ? "" : `${problem.path} `}${problem.message}`
      : `${problem.path} ${text}`;
  return { code, severity: "error", path: problem.path, message };
}
