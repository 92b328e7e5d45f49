import ignore, { type Ignore, type PatternParams } from "ignore";
import { SECRET_FILE_PATTERNS, secretFilePattern } from "@skillport/core/internal";

/**
 * FastGPT's built-in DEFAULT_GITIGNORE_CONTENT, entry for entry (docs/packages.md). Always loaded; a `.gitignore`
 * may negate an entry here unless it is also protected below.
 */
export const DEFAULT_EXCLUSIONS: readonly string[] = Object.freeze([
  "node_modules/",
  ".npm/",
  ".yarn/",
  ".pnpm-store/",
  "package.zip",
  "__pycache__/",
  "*.pyc",
  "*.pyo",
  "*.pyd",
  ".venv/",
  "venv/",
  "env/",
  ".pytest_cache/",
  "*.egg-info/",
  ".eggs/",
  "dist/",
  "build/",
  ".next/",
  "out/",
  ".nuxt/",
  ".vscode/",
  ".idea/",
  "*.suo",
  "*.ntvs*",
  "*.njsproj",
  "*.sln",
  "*.swp",
  "*.swo",
  ".DS_Store",
  ".DS_Store?",
  "._*",
  "__MACOSX/",
  "Thumbs.db",
  "ehthumbs.db",
  "desktop.ini",
  "*.mp4",
  "*.avi",
  "*.mkv",
  "*.mov",
  "*.mp3",
  "*.wav",
  "*.flac",
  "*.tgz",
  "*.tar",
  "*.tar.gz",
  "*.rar",
  "*.7z",
  "*.exe",
  "*.dll",
  "*.so",
  "*.dylib",
  "*.dmg",
  "*.pkg",
  "*.iso",
  "*.log",
  "npm-debug.log*",
  "yarn-debug.log*",
  "yarn-error.log*",
  "pnpm-debug.log*",
]);

/**
 * Files that look like credentials, and version-control folders: core's one list (decision 0255). Excluded even
 * without a `.gitignore` line, and no negation brings them back; only `includeSecrets` does.
 */
export const SECRET_PATTERNS: readonly string[] = SECRET_FILE_PATTERNS;

/** Dependency and cache directories: never shipped, and no negation can re-include them. */
export const PROTECTED_PATTERNS: readonly string[] = Object.freeze([
  "node_modules/",
  ".npm/",
  ".yarn/",
  ".pnpm-store/",
  "__pycache__/",
  ".venv/",
  "venv/",
  "env/",
  ".pytest_cache/",
  "*.egg-info/",
  ".eggs/",
  ".cache/",
]);

export type ExclusionKind = "secret" | "protected" | "default" | "gitignore" | "output" | "special";

export interface ExclusionVerdict {
  kind: ExclusionKind;
  /** Human-readable, e.g. `secret (*.pem)` or `.gitignore: skills/a/.gitignore (*.csv)`. */
  reason: string;
}

/** Rules remember where they came from, for the reason shown to users: `[source file, original line]`. */
const DEFAULTS_SOURCE = "";
const sourceMark = (source: string, line: string): string => JSON.stringify([source, line]);

/**
 * Decides what a package leaves out: secret and protected rules first (final), then the gitignore stack — the
 * defaults, the root `.gitignore`, and each nested `.gitignore` on the way to a path, in that order, last match
 * winning, exactly as git layers them (docs/decisions/0040-package-exclusion-layers.md).
 */
export class ExclusionRules {
  readonly #includeSecrets: boolean;
  readonly #protected = ignore().add([...PROTECTED_PATTERNS]);
  readonly #rootRules: PatternParams[];
  /** Directory (POSIX, relative to the root) → its `.gitignore` rules, rewritten relative to the root. */
  readonly #nested = new Map<string, PatternParams[]>();
  /** One combined matcher per set of governing `.gitignore` files. */
  readonly #stacks = new Map<string, Ignore>();

  constructor(options: { includeSecrets?: boolean; rootGitignore?: string } = {}) {
    this.#includeSecrets = options.includeSecrets ?? false;
    this.#rootRules = DEFAULT_EXCLUSIONS.map((pattern) => ({ pattern, mark: sourceMark(DEFAULTS_SOURCE, pattern) }));
    for (const line of gitignoreLines(options.rootGitignore ?? ""))
      this.#rootRules.push({ pattern: line, mark: sourceMark(".gitignore", line) });
  }

  /** Adds the rules of `<dir>/.gitignore` (dir is POSIX and relative to the package root, not ""). */
  addNested(dir: string, content: string): void {
    const file = `${dir}/.gitignore`;
    const rules: PatternParams[] = [];
    for (const line of gitignoreLines(content)) {
      const pattern = rebase(line, dir);
      if (pattern !== undefined) rules.push({ pattern, mark: sourceMark(file, line) });
    }
    this.#nested.set(dir, rules);
    this.#stacks.clear();
  }

  /** `relPath` is POSIX and relative to the root; directories are tested with `isDir` true. */
  check(relPath: string, isDir: boolean): ExclusionVerdict | undefined {
    const probe = isDir ? `${relPath}/` : relPath;
    const secret = this.#includeSecrets ? undefined : secretFilePattern(relPath, isDir);
    if (secret !== undefined) return { kind: "secret", reason: `secret (${secret})` };
    const dependency = this.#protected.test(probe);
    if (dependency.ignored)
      return { kind: "protected", reason: `dependency or cache (${dependency.rule?.pattern ?? ""})` };
    const result = this.#stackFor(relPath).test(probe);
    if (!result.ignored) return undefined;
    const [source, pattern] = JSON.parse(result.rule?.mark ?? '[".gitignore",""]') as [string, string];
    return source === DEFAULTS_SOURCE
      ? { kind: "default", reason: `default (${pattern})` }
      : { kind: "gitignore", reason: `${source} (${pattern.trim()})` };
  }

  /** The defaults, root rules and every nested file governing `relPath`, shallowest first. */
  #stackFor(relPath: string): Ignore {
    const parts = relPath.split("/");
    const dirs: string[] = [];
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (this.#nested.has(dir)) dirs.push(dir);
    }
    const key = dirs.join("\n");
    let stack = this.#stacks.get(key);
    if (!stack) {
      stack = ignore().add(this.#rootRules);
      for (const dir of dirs) stack.add(this.#nested.get(dir) ?? []);
      this.#stacks.set(key, stack);
    }
    return stack;
  }
}

/**
 * A nested `.gitignore` line rewritten relative to the package root: a pattern with a slash (other than a trailing
 * one) is anchored to its directory, one without matches at any depth below it. Blank lines and comments are dropped.
 */
function rebase(line: string, dir: string): string | undefined {
  const trimmed = line.replace(/(?<!\\)\s+$/, "");
  if (trimmed === "" || trimmed.startsWith("#")) return undefined;
  const negate = trimmed.startsWith("!");
  const body = negate ? trimmed.slice(1) : trimmed;
  const withoutTrailing = body.endsWith("/") ? body.slice(0, -1) : body;
  const anchored = withoutTrailing.includes("/");
  const base = escapeGlob(dir);
  const rebased = anchored ? `${base}/${body.replace(/^\//, "")}` : `${base}/**/${body}`;
  return `${negate ? "!" : ""}${rebased}`;
}

/** A directory name as a literal pattern prefix: glob characters escaped, and a leading `#`/`!` too. */
function escapeGlob(dir: string): string {
  return dir.replace(/[*?[\]\\]/g, "\\$&").replace(/^[#!]/, "\\$&");
}

/** Lines of a `.gitignore`; the `ignore` package handles comments, escapes and trailing spaces itself. */
function gitignoreLines(content: string): string[] {
  return content.replace(/^\uFEFF/, "").split(/\r?\n/);
}
