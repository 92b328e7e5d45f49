/**
 * Which files of a skill its instructions point to: Markdown links, and paths under the resource folders, in the
 * body and — transitively — in every Markdown file the body points to. Pure: the caller supplies file contents.
 */

/** One mention of a file in Markdown text. Lines and columns are 1-based in that text. */
export interface FileMention {
  /** As written, without a `#fragment` or `?query`, percent-decoding applied for links. */
  target: string;
  line: number;
  column: number;
  /** `link`: a Markdown link or image; `path`: a path under scripts/, references/ or assets/; `name`: a bare `*.md`. */
  how: "link" | "path" | "name";
}

const LINK = /!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)\n]*)?\)/g;
const RESOURCE_PATH = /(?<![\w./-])(?:\.\/)?(?:scripts|references|assets)\/[^\s`'"()[\]<>{},;|*$…]*/g;
const MARKDOWN_NAME = /(?<![\w./-])[\w][\w.-]*\.md\b(?![\w/-])/gi;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
// Words a path may end with in prose; they are not part of it.
const TRAILING = /[.,:;!?]+$/;

/** Every file mention in `text`, in order of appearance. */
export function findFileMentions(text: string): FileMention[] {
  const mentions: FileMention[] = [];
  // Built on the first mention: most texts mention nothing, and indexing every line of every body is most of the cost.
  let lineStarts: number[] | undefined;
  const at = (offset: number): { line: number; column: number } => {
    const starts = (lineStarts ??= lineStartsOf(text));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (starts[lo] ?? 0) + 1 };
  };
  const linked = new Set<number>();
  // Each pattern scans the whole text (a lookbehind, or an optional first character, at every position): skip it when
  // its fixed part cannot occur. `includes` is a native substring search.
  const links = text.includes("](") ? text.matchAll(LINK) : [];
  for (const match of links) {
    const raw = match[1] ?? "";
    if (raw === "" || raw.startsWith("#") || raw.startsWith("/") || SCHEME.test(raw)) continue;
    const target = decode(raw.replace(/[#?].*$/, ""));
    if (target === "") continue;
    const offset = (match.index ?? 0) + match[0].indexOf(raw);
    linked.add(offset);
    mentions.push({ target, ...at(offset), how: "link" });
  }
  const resourcePaths = mentionsResourceDir(text) ? text.matchAll(RESOURCE_PATH) : [];
  for (const match of resourcePaths) {
    const offset = match.index ?? 0;
    // `scripts/<name>.py`, `assets/*.png`, `references/${x}`, `scripts/…`: a pattern, not a file.
    if (linked.has(offset) || /[<>{}*$…]/.test(text[offset + match[0].length] ?? "") || match[0].includes("..."))
      continue;
    const target = match[0].replace(TRAILING, "");
    mentions.push({ target, ...at(offset), how: "path" });
  }
  const markdownNames = hasMdSuffix(text) ? text.matchAll(MARKDOWN_NAME) : [];
  for (const match of markdownNames) {
    const offset = match.index ?? 0;
    if (linked.has(offset)) continue;
    mentions.push({ target: match[0], ...at(offset), how: "name" });
  }
  return mentions.sort((a, b) => a.line - b.line || a.column - b.column);
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * Whether `scripts/`, `references/` or `assets/` occurs. Searching for the rare `/` and looking back is several times
 * faster than three substring searches whose first letters are common in prose.
 */
function mentionsResourceDir(text: string): boolean {
  for (let i = text.indexOf("/"); i !== -1; i = text.indexOf("/", i + 1)) {
    if (text.endsWith("scripts", i) || text.endsWith("references", i) || text.endsWith("assets", i)) return true;
  }
  return false;
}

/** Whether `.md` occurs in any letter case (`| 0x20` folds only M→m and D→d onto those letters). */
function hasMdSuffix(text: string): boolean {
  for (let i = text.indexOf("."); i !== -1; i = text.indexOf(".", i + 1)) {
    if ((text.charCodeAt(i + 1) | 0x20) === 0x6d && (text.charCodeAt(i + 2) | 0x20) === 0x64) return true;
  }
  return false;
}

function decode(target: string): string {
  try {
    return decodeURIComponent(target);
  } catch {
    return target;
  }
}

/** A mention that names no file of the skill. */
interface BrokenMention extends FileMention {
  /** The Markdown file the mention is in, relative to the skill (`SKILL.md` for the body). */
  in: string;
  /** `missing`: nothing by that name; `case`: only a file whose name differs in letter case. */
  problem: "missing" | "case";
  /** For `case`: the file that exists. */
  actual?: string;
}

export interface ReferenceGraph {
  /** Files reached from the body, directly or through referenced Markdown files (skill-relative paths). */
  reached: Set<string>;
  broken: BrokenMention[];
}

export interface ReferenceOptions {
  /** The body of SKILL.md. */
  body: string;
  /** Every file of the skill, skill-relative POSIX paths. */
  files: readonly string[];
  /** Text of a Markdown file of the skill, or undefined when it cannot be read. Called once per reached file. */
  readText?: (path: string) => string | undefined;
  /** Most Markdown files followed. Default 64. */
  maxFollowed?: number;
}

/**
 * Follows mentions from the body through referenced Markdown files. A link or resource path that names no file is
 * broken (`missing`); one that only matches a file in another letter case is broken (`case`) — it works on a
 * case-insensitive disk and fails everywhere else. A bare `NAME.md` is checked for case only: prose names many files.
 */
export function followReferences(options: ReferenceOptions): ReferenceGraph {
  const files = new Set(options.files);
  const byLowerCase = new Map<string, string>();
  for (const file of options.files) if (!byLowerCase.has(file.toLowerCase())) byLowerCase.set(file.toLowerCase(), file);
  const dirs = new Set<string>();
  for (const file of options.files)
    for (let i = file.indexOf("/"); i !== -1; i = file.indexOf("/", i + 1)) dirs.add(file.slice(0, i));
  const maxFollowed = options.maxFollowed ?? 64;
  const reached = new Set<string>();
  const broken: BrokenMention[] = [];
  const queue: Array<{ path: string; text: string }> = [{ path: "SKILL.md", text: options.body }];
  const followed = new Set<string>(["SKILL.md"]);

  while (queue.length > 0) {
    const { path: from, text } = queue.shift()!;
    const baseDir = from.includes("/") ? from.slice(0, from.lastIndexOf("/")) : "";
    for (const mention of findFileMentions(text)) {
      const candidates = [...new Set([resolve(baseDir, mention.target), resolve("", mention.target)])].filter(
        (c): c is string => c !== undefined,
      );
      if (candidates.length === 0) continue; // leaves the skill: not this rule's business
      const reach = (file: string): void => {
        reached.add(file);
        if (file.toLowerCase().endsWith(".md") && !followed.has(file) && followed.size < maxFollowed) {
          followed.add(file);
          const content = options.readText?.(file);
          if (content !== undefined) queue.push({ path: file, text: content });
        }
      };
      const exact = candidates.find((c) => files.has(c) || dirs.has(c.replace(/\/$/, "")));
      if (exact !== undefined) {
        if (dirs.has(exact.replace(/\/$/, ""))) {
          const prefix = `${exact.replace(/\/$/, "")}/`;
          for (const file of options.files) if (file.startsWith(prefix)) reached.add(file);
        } else reach(exact);
        continue;
      }
      const actual = candidates.map((c) => byLowerCase.get(c.toLowerCase())).find((f) => f !== undefined);
      if (actual !== undefined) {
        broken.push({ ...mention, in: from, problem: "case", actual });
        reach(actual); // what it leads to is still meant to be reached
      } else if (mention.how !== "name" && !/[<>{}*$]/.test(mention.target))
        broken.push({ ...mention, in: from, problem: "missing" });
    }
  }
  return { reached, broken };
}

/** `target` against `baseDir` inside the skill, normalised; undefined when it climbs out of the skill. */
function resolve(baseDir: string, target: string): string | undefined {
  const parts = baseDir === "" ? [] : baseDir.split("/");
  for (const segment of target.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(segment);
  }
  return parts.length === 0 ? undefined : parts.join("/");
}
