import fs, { type Dirent } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import { isSafeSkillId } from "@skillport/core";
import { compareCodeUnits } from "@skillport/core/internal";
import { isInside, joinReal } from "../floor/confine.js";
import { errorCode, isMissing } from "../floor/errno.js";
import { SKILL_FILE_NAMES } from "../floor/file-limits.js";
import {
  SkillDirectory,
  fileProblem,
  type SkillDirectoryOptions,
  type SkillProbe,
  type SkillProblem,
} from "./skill-directory.js";
import { walkTree } from "../floor/walk.js";
import { readDirectory, readDirectorySync, type UndecodableEntry } from "../floor/dir-entries.js";

/**
 * A folder a locator looked at and did not serve as a skill, and why. Nothing is dropped silently: every skipped
 * folder is one of these (docs/decisions/0125). `where` is relative to the locator's root, POSIX.
 */
export interface SkippedSkill extends SkillProblem {
  where: string;
}

export interface LocatedSkills {
  /** By id. */
  skills: Map<string, SkillDirectory>;
  /** Sorted by `where`. */
  skipped: SkippedSkill[];
}

/** Finds skills. Locators are pluggable: a flat root, a nested scan, or an explicit list. */
export interface SkillLocator {
  /** Every skill and every skipped folder. */
  locate(): LocatedSkills | Promise<LocatedSkills>;
  /** One skill by id, without locating all of them when the layout allows it. */
  probe(id: string): SkillProbe | Promise<SkillProbe>;
}

const skipped = (where: string, problem: SkillProblem): SkippedSkill => ({ ...problem, where });

/**
 * The immediate subdirectories of `rootReal` (a real path) that hold a skill file; the folder name is the id.
 * Skipped without a report, as documented: dot-entries (hidden folders, the repository's temp folders) and loose
 * files. Reported: names that are not safe ids, folder links leaving the root (or dangling), folders without a
 * skill file, and skill files refused by the policy.
 */
export class FlatRootLocator implements SkillLocator {
  readonly root: string;
  readonly #options: SkillDirectoryOptions;
  readonly #sync: boolean;

  constructor(rootReal: string, options: SkillDirectoryOptions & { sync?: boolean } = {}) {
    this.root = rootReal;
    this.#options = options;
    this.#sync = options.sync ?? true;
  }

  /** With blocking calls (the default) the walk is synchronous: no promise per folder (docs/decisions/0037). */
  locate(): LocatedSkills | Promise<LocatedSkills> {
    if (this.#sync) {
      const listed = readDirectorySync(this.root);
      const candidates = candidateFolders(listed.entries);
      // A plain loop, not a closure per folder: thousands of folders, most of them probed before this code is optimised.
      const probes: Array<SkillProbe | Failed | Promise<SkillProbe>> = new Array(candidates.length);
      let pending = false;
      for (let i = 0; i < candidates.length; i++) {
        const entry = candidates[i]!;
        try {
          const probe = this.#probeEntry(entry.name, entry);
          pending ||= probe instanceof Promise;
          probes[i] = probe;
        } catch (error) {
          probes[i] = new Failed(error);
        }
      }
      // Only a folder link is probed through a promise (settled already, with blocking calls): wait for those alone.
      if (!pending)
        return withUndecodable(
          collect(candidates, probes as Array<SkillProbe | Failed>),
          this.root,
          listed.undecodable,
        );
      return Promise.all(
        probes.map((p) => (p instanceof Promise ? p.catch((error: unknown) => new Failed(error)) : p)),
      ).then((settled) => withUndecodable(collect(candidates, settled), this.root, listed.undecodable));
    }
    return (async () => {
      const listed = await readDirectory(this.root);
      const candidates = candidateFolders(listed.entries);
      const probes: Array<SkillProbe | Failed> = [];
      for (const entry of candidates) {
        try {
          probes.push(await this.#probeEntry(entry.name, entry));
        } catch (error) {
          probes.push(new Failed(error));
        }
      }
      return withUndecodable(collect(candidates, probes), this.root, listed.undecodable);
    })();
  }

  probe(id: string): SkillProbe | Promise<SkillProbe> {
    return this.#probeEntry(id, undefined);
  }

  /**
   * `entry` (from readdir) saves an lstat when discovery already knows the type. A real folder, with blocking calls,
   * is probed synchronously; links and asynchronous calls take the slow path.
   */
  #probeEntry(name: string, entry: Dirent | undefined): SkillProbe | Promise<SkillProbe> {
    if (!isSafeSkillId(name)) {
      return {
        ok: false,
        problem: {
          code: "skill-id-unsafe",
          severity: "warning",
          path: "",
          message: `the folder name ${JSON.stringify(name)} is not a safe skill id`,
        },
      };
    }
    const dir = joinReal(this.root, name); // a safe id: one plain segment
    if (this.#sync && entry?.isDirectory() === true) return SkillDirectory.probe(dir, this.#options);
    return this.#probeSlow(dir, entry);
  }

  async #probeSlow(dir: string, entry: Dirent | undefined): Promise<SkillProbe> {
    let isLink = entry?.isSymbolicLink();
    if (isLink === undefined) {
      const stats = this.#sync ? fs.lstatSync(dir, { throwIfNoEntry: false }) : await statOrUndefined(dir);
      if (stats === undefined)
        return {
          ok: false,
          problem: { code: "skill-dir-not-directory", severity: "error", path: "", message: "no such skill folder" },
        };
      if (!stats.isDirectory() && !stats.isSymbolicLink()) return notDirectory();
      isLink = stats.isSymbolicLink();
    }
    if (isLink) {
      let real: string;
      try {
        real = this.#sync ? fs.realpathSync(dir) : await realpath(dir);
      } catch (error) {
        if (isMissing(error) || errorCode(error) === "ELOOP") {
          return {
            ok: false,
            problem: {
              code: "skill-dir-link-outside",
              severity: "error",
              path: "",
              message: "the folder is a symbolic link whose target does not exist",
            },
          };
        }
        throw error;
      }
      if (real === this.root || !isInside(this.root, real)) {
        return {
          ok: false,
          problem: {
            code: "skill-dir-link-outside",
            severity: "error",
            path: "",
            message: "the folder is a symbolic link that leads outside the skills root",
          },
        };
      }
      const info = this.#sync ? fs.statSync(real) : await stat(real);
      if (!info.isDirectory()) return notDirectory();
      dir = real;
    }
    return this.#sync ? SkillDirectory.probe(dir, this.#options) : SkillDirectory.probeAsync(dir, this.#options);
  }
}

/** A probe that threw: the folder is reported as unreadable, and the others are still probed. */
class Failed {
  constructor(readonly error: unknown) {}
}

/** The entries that may be skills, in code-unit order: folders and links; dot-entries and loose files are not. */
function candidateFolders(entries: Dirent[]): Dirent[] {
  return entries
    .filter((e) => !e.name.startsWith(".") && (e.isDirectory() || e.isSymbolicLink()))
    .sort((a, b) => compareCodeUnits(a.name, b.name));
}

/** Sorts the candidates' probes into skills and skipped folders. */
function collect(candidates: readonly Dirent[], probes: ReadonlyArray<SkillProbe | Failed>): LocatedSkills {
  const found = new Map<string, SkillDirectory>();
  const skips: SkippedSkill[] = [];
  candidates.forEach((entry, i) => {
    let probe = probes[i]!;
    if (probe instanceof Failed) {
      probe = {
        ok: false,
        problem: {
          code: "skill-unreadable",
          severity: "error",
          path: "",
          message: `the folder cannot be read (${errorCode(probe.error) ?? "unknown error"})`,
        },
      };
    }
    if (probe.ok) found.set(entry.name, probe.skill);
    else if (probe.problem.code !== "skill-dir-not-directory") skips.push(skipped(entry.name, probe.problem));
  });
  return { skills: found, skipped: skips };
}

/**
 * Folders whose names are not UTF-8 (no string path reaches them, so no skill id can name them): reported by their
 * escaped bytes — an error when the folder holds a skill file (a skill left out), a warning otherwise (not a skill).
 */
function withUndecodable(
  located: LocatedSkills,
  root: string,
  undecodable: readonly UndecodableEntry[],
): LocatedSkills {
  const folders = undecodable.filter((e) => e.bytes[0] !== 0x2e && (e.isDirectory || e.isSymbolicLink));
  if (folders.length === 0) return located;
  for (const folder of folders) {
    const dir = Buffer.concat([Buffer.from(`${root}/`), folder.bytes]);
    const holdsSkill = SKILL_FILE_NAMES.some(
      (name) => fs.lstatSync(Buffer.concat([dir, Buffer.from(`/${name}`)]), { throwIfNoEntry: false }) !== undefined,
    );
    const message = `the folder name "${folder.escaped}" is not valid UTF-8 (bad bytes shown as \\xHH)${holdsSkill ? "; rename it to serve the skill" : ", and it has no SKILL.md"}`;
    located.skipped.push(
      skipped(folder.escaped, {
        code: "skill-id-not-utf8",
        severity: holdsSkill ? "error" : "warning",
        path: "",
        message,
      }),
    );
  }
  located.skipped.sort((a, b) => compareCodeUnits(a.where, b.where));
  return located;
}

function notDirectory(): SkillProbe {
  return {
    ok: false,
    problem: { code: "skill-dir-not-directory", severity: "error", path: "", message: "it is not a directory" },
  };
}

async function statOrUndefined(p: string): Promise<fs.Stats | undefined> {
  try {
    return await lstat(p);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

export interface NestedScanOptions extends SkillDirectoryOptions {
  /** Folder names never entered. Default: node_modules, .venv, venv (hidden folders are never entered either). */
  skipDirs?: readonly string[];
  /** Deepest folder searched below the root. Default 6. */
  maxDepth?: number;
  /** Most folders visited. Default 10,000. */
  maxDirs?: number;
}

export const DEFAULT_NESTED_SKIP_DIRS: readonly string[] = ["node_modules", ".venv", "venv"];

/** A skill found by a nested scan: `where` is its folder relative to the scan root (never `""`). */
export interface NestedSkill {
  where: string;
  skill: SkillDirectory;
}

export interface NestedScanResult {
  /** In path order. */
  skills: NestedSkill[];
  skipped: SkippedSkill[];
}

/**
 * Skills anywhere below `rootReal` (like a deployed version's `skills/**`): a folder holding a skill file is a skill and
 * is not searched further (its scripts/ and references/ hold no skills). Bounded (`maxDepth`, `maxDirs`), links never
 * followed. Skipped without a report, as documented: hidden folders and `skipDirs`. Reported: links (not followed),
 * folders cut by a limit, unsafe names, and skill files refused by the policy.
 */
export function scanNestedSkills(rootReal: string, options: NestedScanOptions = {}): NestedScanResult {
  const skip = new Set(options.skipDirs ?? DEFAULT_NESTED_SKIP_DIRS);
  const skills: NestedSkill[] = [];
  const skips: SkippedSkill[] = [];
  const walked = walkTree(rootReal, {
    files: false,
    onProblem: "collect",
    links: "exclude",
    linkReason: "a symbolic link; the scan does not follow links",
    maxDepth: options.maxDepth ?? 6,
    maxDirs: options.maxDirs ?? 10_000,
    exclude: (rel, isDir, { link }) => {
      if (link) return undefined; // judged by the link policy, so it is reported
      const name = rel.slice(rel.lastIndexOf("/") + 1);
      return isDir && (name.startsWith(".") || skip.has(name)) ? "skipped folder" : isDir ? undefined : "file";
    },
    onDirectory: ({ path: rel, realPath, entries }) => {
      if (rel === "" || !entries.some((e) => (SKILL_FILE_NAMES as readonly string[]).includes(e.name))) return true;
      const probe = SkillDirectory.probe(realPath, options);
      if (probe.ok) skills.push({ where: rel, skill: probe.skill });
      else skips.push(skipped(rel, probe.problem));
      return false;
    },
  });
  for (const problem of walked.problems)
    skips.push(skipped(problem.path, { ...fileProblem(problem), severity: "warning" }));
  for (const link of walked.excluded.filter((e) => e.reason.startsWith("a symbolic link"))) {
    skips.push(
      skipped(link.path, {
        code: "skill-dir-link-outside",
        severity: "warning",
        path: "",
        message: `${link.path} is ${link.reason}`,
      }),
    );
  }
  skills.sort((a, b) => compareCodeUnits(a.where, b.where));
  skips.sort((a, b) => compareCodeUnits(a.where, b.where));
  return { skills, skipped: skips };
}

/** An explicit list of skills (id → a folder already located, e.g. by a nested scan). */
export class SkillListLocator implements SkillLocator {
  readonly #entries: ReadonlyMap<string, SkillDirectory>;
  readonly #options: SkillDirectoryOptions;

  constructor(entries: Iterable<readonly [string, SkillDirectory]>, options: SkillDirectoryOptions = {}) {
    this.#entries = new Map(entries);
    this.#options = options;
  }

  locate(): LocatedSkills {
    return { skills: new Map(this.#entries), skipped: [] };
  }

  /** Re-probes the listed folder (its skill file may have changed), never another folder. */
  probe(id: string): SkillProbe {
    const known = this.#entries.get(id);
    if (known === undefined)
      return {
        ok: false,
        problem: { code: "skill-dir-not-directory", severity: "error", path: "", message: "no such skill" },
      };
    return SkillDirectory.probe(known.dir, this.#options);
  }
}
