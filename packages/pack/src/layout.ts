import { validateSkillMd, type Diagnostic, type ProfileName } from "@skillport/core";
import { comparePaths } from "./paths.js";

/** A skill found in a package. */
export interface PackageSkill {
  name: string;
  description: string;
  /** Its directory, relative to the package root: `skills/<dir>`. */
  path: string;
}

export interface LayoutReport {
  /** Every problem found, errors and warnings, in path order. */
  diagnostics: Diagnostic[];
  skills: PackageSkill[];
  /** No error-severity diagnostics. */
  valid: boolean;
}

export interface LayoutOptions {
  /** Validation profile for each SKILL.md. Default `fastgpt`. */
  profile?: ProfileName;
}

export const DEFAULT_PACKAGE_PROFILE: ProfileName = "fastgpt";

/**
 * Checks a package's file list (POSIX paths relative to its root, after exclusions): `skills/` at the root, every
 * first-level directory a skill with a SKILL.md valid under the profile, names unique ignoring case.
 * Reports every problem, never only the first.
 */
export async function checkLayout(
  paths: readonly string[],
  read: (path: string) => Promise<Uint8Array>,
  options: LayoutOptions = {},
): Promise<LayoutReport> {
  const profile = options.profile ?? DEFAULT_PACKAGE_PROFILE;
  const diagnostics: Diagnostic[] = [];
  const report = (
    code: string,
    message: string,
    file: string,
    severity: Diagnostic["severity"] = "error",
    line = 0,
    column = 0,
  ) => diagnostics.push({ code, severity, message, file, line, column });

  const skillDirs = new Set<string>();
  const present = new Set(paths);
  for (const p of paths) {
    const parts = p.split("/");
    if (parts[0] !== "skills") continue;
    if (parts.length === 2)
      report(
        "package-stray-file",
        `${p} is not inside a skill directory; only skills/<name>/ folders are skills`,
        p,
        "warning",
      );
    else if (parts[1] !== undefined) skillDirs.add(parts[1]);
  }
  if (!paths.some((p) => p.startsWith("skills/"))) {
    report(
      "package-skills-missing",
      "a package must have a skills/ directory at its root containing at least one skills/<name>/SKILL.md",
      "skills/",
    );
    return { diagnostics, skills: [], valid: false };
  }

  const skills: PackageSkill[] = [];
  const byName = new Map<string, { file: string }>();
  for (const dir of [...skillDirs].sort(comparePaths)) {
    const file = `skills/${dir}/SKILL.md`;
    if (!present.has(file)) {
      report(
        "package-skill-md-missing",
        `skills/${dir}/ has no SKILL.md; every first-level directory under skills/ must be a skill`,
        `skills/${dir}/`,
      );
      continue;
    }
    const result = validateSkillMd(await read(file), { profile, dirName: dir, file, lint: false });
    diagnostics.push(...result.diagnostics);
    const frontmatter = result.parsed.frontmatter;
    const name = typeof frontmatter?.name === "string" ? frontmatter.name : dir;
    const description = typeof frontmatter?.description === "string" ? frontmatter.description : "";
    const key = name.normalize("NFC").toLowerCase();
    const first = byName.get(key);
    if (first) {
      const at = result.parsed.positions.get("name");
      report(
        "skill-name-duplicate",
        `Duplicate runtime skill name: ${name} (also declared in ${first.file})`,
        file,
        "error",
        at?.line ?? 1,
        at?.column ?? 1,
      );
    } else {
      byName.set(key, { file });
    }
    skills.push({ name, description, path: `skills/${dir}` });
  }
  if (skills.length === 0) {
    report("package-no-skills", "a package must contain at least one skills/<name>/SKILL.md", "skills/");
  }
  return { diagnostics, skills, valid: !diagnostics.some((d) => d.severity === "error") };
}
