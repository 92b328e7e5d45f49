import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { isSafeSkillId } from "@skillport/core";
import {
  FlatRootLocator,
  SKILL_FILE_NAMES,
  SkillDirectory,
  SkillDirectorySource,
  isInside,
  type LocatedSkills,
  type SkillDirectoryOptions,
  type SkillDirectorySourceOptions,
  type SkillLocator,
  type SkillProbe,
  type SkippedSkill,
} from "@skillport/fs";
import { RemoteSourceError } from "../errors.js";

export interface NpmSkillSourceOptions extends SkillDirectorySourceOptions {
  /** The package name (`my-skills`, `@scope/skills`). */
  package: string;
  /** Resolve the package as a module in this folder would (Node's node_modules lookup). Default the working directory. */
  from?: string;
  /** Name in qualified ids and messages. Default `npm:<package>`. */
  name?: string;
}

/** An npm package name: an optional scope and a name, lowercase URL-safe characters, no path tricks. */
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/**
 * Skills shipped inside an installed npm package (the classpath analogue), read-only. The package is found the way
 * Node finds a module from `from` (each `node_modules` up the tree, then the global folders), whatever its `exports`
 * say. Its skills are the folders named by an `"agentSkills"` field in its package.json (a string or a list; each a
 * skill folder or a folder of skills), else its `skills/` folder. Every named folder must stay inside the package
 * after links are resolved. Reads go through the one skill-directory policy of @skillport/fs.
 */
export class NpmSkillSource extends SkillDirectorySource {
  readonly name: string;
  readonly packageName: string;
  /** The real path of the package folder. */
  readonly packageDir: string;
  /** The package's version, from its package.json. */
  readonly version: string | undefined;

  constructor(options: NpmSkillSourceOptions) {
    const found = resolvePackage(options.package, path.resolve(options.from ?? process.cwd()));
    const folders = skillFolders(options.package, found.dir, found.manifest);
    super(
      new PackageSkillsLocator(folders, {
        maxFileBytes: options.maxFileBytes,
        maxListFiles: options.maxListFiles,
        maxListDepth: options.maxListDepth,
        refuseHardLinks: options.refuseHardLinks,
      }),
      options,
    );
    this.packageName = options.package;
    this.packageDir = found.dir;
    this.version = typeof found.manifest.version === "string" ? found.manifest.version : undefined;
    this.name = options.name ?? `npm:${options.package}`;
  }
}

interface Manifest {
  version?: unknown;
  agentSkills?: unknown;
}

function resolvePackage(name: string, from: string): { dir: string; manifest: Manifest } {
  if (!PACKAGE_NAME.test(name) || name.length > 214)
    throw new RemoteSourceError(`not an npm package name: ${JSON.stringify(name)}`, "REMOTE_CONFIG");
  // The lookup folders Node would use for `require(name)` from `from`, without asking the package's exports map.
  const lookup = createRequire(path.join(from, "__skillport_resolve__.js")).resolve.paths(name) ?? [];
  for (const dir of lookup) {
    const manifestFile = path.join(dir, ...name.split("/"), "package.json");
    if (!existsSync(manifestFile)) continue;
    const real = realpathSync(path.dirname(manifestFile));
    let manifest: Manifest;
    try {
      manifest = JSON.parse(readFileSync(path.join(real, "package.json"), "utf8")) as Manifest;
    } catch {
      throw new RemoteSourceError(`npm:${name}: its package.json cannot be read as JSON`, "REMOTE_CONFIG");
    }
    return { dir: real, manifest: typeof manifest === "object" && manifest !== null ? manifest : {} };
  }
  throw new RemoteSourceError(
    `npm:${name}: the package is not installed where ${from} can resolve it (npm install ${name})`,
    "REMOTE_CONFIG",
  );
}

type Folder = { kind: "root"; where: string; dir: string } | { kind: "skill"; where: string; dir: string; id: string };

function skillFolders(name: string, packageDir: string, manifest: Manifest): Folder[] {
  const declared = manifest.agentSkills;
  let named: string[];
  if (declared === undefined) {
    if (!isDirectory(path.join(packageDir, "skills"))) {
      throw new RemoteSourceError(
        `npm:${name}: the package has no skills/ folder and no "agentSkills" field in its package.json`,
        "REMOTE_CONFIG",
      );
    }
    named = ["skills"];
  } else if (
    typeof declared === "string" ||
    (Array.isArray(declared) && declared.every((d) => typeof d === "string"))
  ) {
    named = typeof declared === "string" ? [declared] : (declared as string[]);
  } else {
    throw new RemoteSourceError(`npm:${name}: "agentSkills" must be a folder or a list of folders`, "REMOTE_CONFIG");
  }
  return named.map((entry) => {
    const rel = entry
      .replace(/\\/g, "/")
      .replace(/^\.\/+/, "")
      .replace(/\/+$/, "");
    if (rel === "" || path.posix.isAbsolute(rel) || rel.split("/").includes("..") || /[\0-\x1f]/.test(rel)) {
      throw new RemoteSourceError(
        `npm:${name}: "agentSkills" names ${JSON.stringify(entry)}, which is not a folder inside the package`,
        "REMOTE_CONFIG",
      );
    }
    let real: string;
    try {
      real = realpathSync(path.join(packageDir, ...rel.split("/")));
    } catch {
      throw new RemoteSourceError(
        `npm:${name}: "agentSkills" names ${JSON.stringify(entry)}, which does not exist`,
        "REMOTE_CONFIG",
      );
    }
    if (real !== packageDir && !isInside(packageDir, real)) {
      throw new RemoteSourceError(
        `npm:${name}: "agentSkills" names ${JSON.stringify(entry)}, which leads outside the package`,
        "REMOTE_CONFIG",
      );
    }
    if (!isDirectory(real))
      throw new RemoteSourceError(
        `npm:${name}: "agentSkills" names ${JSON.stringify(entry)}, which is not a folder`,
        "REMOTE_CONFIG",
      );
    const isSkill = SKILL_FILE_NAMES.some((file) => existsSync(path.join(real, file)));
    return isSkill
      ? { kind: "skill", where: rel, dir: real, id: path.basename(real) }
      : { kind: "root", where: rel, dir: real };
  });
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The package's skill folders in declared order; the first folder to hold an id serves it, later ones are reported. */
class PackageSkillsLocator implements SkillLocator {
  readonly #parts: { folder: Folder; roots?: FlatRootLocator }[];
  readonly #options: SkillDirectoryOptions;

  constructor(folders: readonly Folder[], options: SkillDirectoryOptions) {
    this.#options = options;
    this.#parts = folders.map((folder) =>
      folder.kind === "root" ? { folder, roots: new FlatRootLocator(folder.dir, options) } : { folder },
    );
  }

  async locate(): Promise<LocatedSkills> {
    const skills = new Map<string, SkillDirectory>();
    const skipped: SkippedSkill[] = [];
    const add = (id: string, where: string, skill: SkillDirectory) => {
      if (skills.has(id))
        skipped.push({
          where,
          code: "skill-id-unsafe",
          severity: "warning",
          path: "",
          message: `a second skill named ${JSON.stringify(id)}; the first is served`,
        });
      else skills.set(id, skill);
    };
    for (const { folder, roots } of this.#parts) {
      if (roots !== undefined) {
        const found = await roots.locate();
        for (const [id, skill] of found.skills) add(id, `${folder.where}/${id}`, skill);
        skipped.push(...found.skipped.map((s) => ({ ...s, where: `${folder.where}/${s.where}` })));
      } else if (folder.kind === "skill") {
        const probe = this.#probeSkill(folder);
        if (probe.ok) add(folder.id, folder.where, probe.skill);
        else skipped.push({ ...probe.problem, where: folder.where });
      }
    }
    return { skills, skipped };
  }

  async probe(id: string): Promise<SkillProbe> {
    let last: SkillProbe = {
      ok: false,
      problem: {
        code: "skill-dir-not-directory",
        severity: "error",
        path: "",
        message: "no such skill in the package",
      },
    };
    for (const { folder, roots } of this.#parts) {
      if (roots !== undefined) {
        const probe = await roots.probe(id);
        if (probe.ok) return probe;
        if (probe.problem.code !== "skill-dir-not-directory") last = probe;
      } else if (folder.kind === "skill" && folder.id === id) {
        return this.#probeSkill(folder);
      }
    }
    return last;
  }

  #probeSkill(folder: Extract<Folder, { kind: "skill" }>): SkillProbe {
    if (!isSafeSkillId(folder.id)) {
      return {
        ok: false,
        problem: {
          code: "skill-id-unsafe",
          severity: "warning",
          path: "",
          message: `the folder name ${JSON.stringify(folder.id)} is not a safe skill id`,
        },
      };
    }
    return SkillDirectory.probe(folder.dir, this.#options);
  }
}
