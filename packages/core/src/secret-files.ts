/**
 * The one list of files that look like credentials or version-control history (docs/security.md, decision 0255).
 * pack and export leave them out, the agent's load tool refuses to serve them, code execution never copies them into
 * a work dir, and install/publish paths import the same rule from here. Matching ignores case on every platform: a
 * case-insensitive file system serves `.ENV` as `.env`, and `.Npmrc` is no less a credential where case matters.
 *
 * Pattern syntax (a small subset of gitignore's, so the list reads like one):
 * - `name` — a glob (`*`, `?`) matched against every path segment: a file or a folder of that name, at any depth;
 *   everything below such a folder is covered too.
 * - `name/` — a folder only (the path lies below it, or is that folder).
 * - `a/b` or `a/b/` — consecutive segments, at any depth (`.config/gh/` covers `x/.config/gh/hosts.yml`).
 */
export const SECRET_FILE_PATTERNS: readonly string[] = Object.freeze([
  // Environment files.
  ".env",
  ".env.*",
  ".envrc",
  // Private keys, key rings and password stores.
  "*.key",
  "*.pem",
  "*.ppk",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  "*.kdbx",
  "secring.*",
  ".ssh/",
  ".gnupg/",
  ".password-store/",
  // Key stores and certificates with private keys.
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  // Cloud and tool credentials.
  "credentials.json",
  "service-account*.json",
  "*-service-account*.json",
  "application_default_credentials.json",
  ".aws/",
  ".azure/",
  ".config/gcloud/",
  ".config/gh/",
  ".docker/",
  ".dockercfg",
  ".kube/",
  ".git-credentials",
  ".netrc",
  "_netrc",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  ".my.cnf",
  ".mylogin.cnf",
  ".s3cfg",
  ".boto",
  ".vault-token",
  ".htpasswd",
  // Infrastructure state and variables hold every secret of what they describe.
  "*.tfstate",
  "*.tfstate.*",
  "*.tfvars",
  "*.tfvars.json",
  ".terraform/",
  ".terraformrc",
  "terraform.rc",
  // Application secret files.
  "secrets.yaml",
  "secrets.yml",
  "secrets.json",
  "secrets.toml",
  "wp-config.php",
  // Shell and REPL histories (typed passwords, tokens in commands).
  ".*_history",
  // Version-control folders: history, remotes with tokens, hooks.
  ".git",
  ".hg",
  ".svn",
  ".bzr",
]);

/** Templates of the files above, meant to be shared: `.env.example`, `secrets.yaml.sample`. */
const SECRET_FILE_TEMPLATES: readonly string[] = Object.freeze(["*.example", "*.sample", "*.template"]);

interface Rule {
  pattern: string;
  segments: RegExp[];
  folderOnly: boolean;
}

const globToRegExp = (glob: string): RegExp =>
  new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
    "i",
  );

const RULES: readonly Rule[] = SECRET_FILE_PATTERNS.map((pattern) => {
  const folderOnly = pattern.endsWith("/");
  const segments = (folderOnly ? pattern.slice(0, -1) : pattern).split("/").map(globToRegExp);
  return { pattern, segments, folderOnly };
});
/**
 * A quick no for the common segment, in one regex V8 runs fast: plain and prefix globs anchored at the start, suffix
 * globs (`*.pem`) anchored at the end only, so no alternative starts with a backtracking `.*`.
 */
const FIRST_SEGMENT = ((): RegExp => {
  const anchored: string[] = [];
  const suffixes: string[] = [];
  for (const rule of RULES) {
    const source = (rule.segments[0] as RegExp).source.slice(1, -1);
    if (source.startsWith(".*") && !source.slice(2).includes(".*")) suffixes.push(source.slice(2));
    else anchored.push(source);
  }
  return new RegExp(`^(?:${anchored.join("|")})$|(?:${suffixes.join("|")})$`, "i");
})();
const TEMPLATE = new RegExp(SECRET_FILE_TEMPLATES.map((g) => globToRegExp(g).source).join("|"), "i");

/**
 * The pattern that makes `relPath` (POSIX, relative to a skill or package root) a secret, or undefined. `isDir`: the
 * path names a folder (then `name/` patterns match it too). A file whose own name is a template (`*.example`) is not
 * a secret unless a folder it lies in is one.
 */
export function secretFilePattern(relPath: string, isDir = false): string | undefined {
  const segments = relPath.split("/").filter((s) => s !== "" && s !== ".");
  for (let i = 0; i < segments.length; i++) {
    if (!FIRST_SEGMENT.test(segments[i] as string)) continue;
    for (const rule of RULES) {
      const end = i + rule.segments.length; // one past the last segment the rule covers
      if (end > segments.length || !rule.segments.every((re, k) => re.test(segments[i + k] as string))) continue;
      const last = end === segments.length;
      if (rule.folderOnly && last && !isDir) continue;
      if (last && !isDir && TEMPLATE.test(segments[end - 1] as string)) continue;
      return rule.pattern;
    }
  }
  return undefined;
}

const LATIN1 = new TextDecoder("latin1");

/** How much of a file `secretFileContent` looks at: a service-account key is about 2.3 KB. */
export const SECRET_CONTENT_HEAD_BYTES = 64 * 1024;

/**
 * Why a file's content makes it a secret whatever its name, or undefined: a Google Cloud service-account key
 * (`"type": "service_account"` with a `"private_key"`). Only `.json` files are looked at, only their first
 * SECRET_CONTENT_HEAD_BYTES.
 */
export function secretFileContent(relPath: string, content: Uint8Array): string | undefined {
  if (!/\.json$/i.test(relPath)) return undefined;
  const head = LATIN1.decode(content.subarray(0, SECRET_CONTENT_HEAD_BYTES));
  return /"type"\s*:\s*"service_account"/.test(head) && /"private_key(?:_id)?"\s*:/.test(head)
    ? "service-account key"
    : undefined;
}
