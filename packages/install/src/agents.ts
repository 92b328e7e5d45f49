import { existsSync } from "node:fs";
import path from "node:path";

/** Where an agent's folders are computed from: the environment, never the process's own `os.homedir()`. */
export interface AgentEnvironment {
  /** The user's home folder (`$HOME`). */
  home: string;
  /** The project folder (the working directory of `skillport add`). */
  cwd: string;
  /** `$XDG_CONFIG_HOME`, else `<home>/.config`. */
  configHome: string;
  /** `$CODEX_HOME`, else `<home>/.codex`. */
  codexHome: string;
  /** `$CLAUDE_CONFIG_DIR`, else `<home>/.claude`. */
  claudeHome: string;
}

/** One row of the agents table: where an agent reads project and global skills, and how to tell it is installed. */
export interface AgentSpec {
  id: string;
  displayName: string;
  /** Project skills folder, relative to the project (POSIX). */
  projectDir: string;
  /** Global skills folder (absolute). */
  globalDir: (env: AgentEnvironment) => string;
  /** Folders whose presence says the agent is used here (absolute). */
  markers: (env: AgentEnvironment) => string[];
  /** Where the row's facts come from. */
  source: string;
  /**
   * `"ignored"` when the agent is known not to list a skill whose folder is a link (it needs `--copy`), with where
   * that was reported; absent when it is not known to ignore links (decision 0421).
   */
  links?: { followed: false; source: string };
  /**
   * The agent's skill listing budget, when it has a known one: the whole listing (`maxChars`, characters) and one
   * entry (`maxEntryChars`), with where those numbers come from (decision 0421).
   */
  catalog?: {
    maxChars: (env: Readonly<Record<string, string | undefined>>) => number;
    maxEntryChars?: number;
    source: string;
  };
}

/** The folder every agent that follows the shared convention reads, and where the canonical copy lives. */
export const CANONICAL_DIR = ".agents/skills";

// Facts from Vercel's table as the `skills` CLI 1.5.18 on npm ships it (source: vercel-labs/skills src/agents.ts),
// which its maintainers keep from the agents' own docs; a row checked against an agent's docs names that page instead.
// Since their commit 82dd76b (2026-02-14) Antigravity, Cline and Cursor moved to `.agents/skills` in a project.
const VERCEL = "skills@1.5.18 (npm), vercel-labs/skills src/agents.ts";

type Row = [
  id: string,
  displayName: string,
  projectDir: string,
  globalDir: (e: AgentEnvironment) => string,
  markers: (e: AgentEnvironment) => string[],
];

const home =
  (...p: string[]) =>
  (e: AgentEnvironment) =>
    path.join(e.home, ...p);
const homes =
  (...dirs: string[]) =>
  (e: AgentEnvironment) =>
    dirs.map((d) => path.join(e.home, d));

const ROWS: readonly Row[] = [
  [
    "amp",
    "Amp",
    CANONICAL_DIR,
    (e) => path.join(e.configHome, "agents/skills"),
    (e) => [path.join(e.configHome, "amp")],
  ],
  ["antigravity", "Antigravity", CANONICAL_DIR, home(".gemini/antigravity/skills"), homes(".gemini/antigravity")],
  ["augment", "Augment", ".augment/skills", home(".augment/skills"), homes(".augment")],
  ["claude-code", "Claude Code", ".claude/skills", (e) => path.join(e.claudeHome, "skills"), (e) => [e.claudeHome]],
  ["cline", "Cline", CANONICAL_DIR, home(".agents/skills"), homes(".cline")],
  ["codex", "Codex", CANONICAL_DIR, (e) => path.join(e.codexHome, "skills"), (e) => [e.codexHome, "/etc/codex"]],
  [
    "continue",
    "Continue",
    ".continue/skills",
    home(".continue/skills"),
    (e) => [path.join(e.cwd, ".continue"), path.join(e.home, ".continue")],
  ],
  ["crush", "Crush", ".crush/skills", home(".config/crush/skills"), homes(".config/crush")],
  ["cursor", "Cursor", CANONICAL_DIR, home(".cursor/skills"), homes(".cursor")],
  ["droid", "Factory Droid", ".factory/skills", home(".factory/skills"), homes(".factory")],
  ["gemini-cli", "Gemini CLI", CANONICAL_DIR, home(".gemini/skills"), homes(".gemini")],
  [
    "github-copilot",
    "GitHub Copilot",
    CANONICAL_DIR,
    home(".copilot/skills"),
    (e) => [path.join(e.cwd, ".github"), path.join(e.home, ".copilot")],
  ],
  [
    "goose",
    "Goose",
    ".goose/skills",
    (e) => path.join(e.configHome, "goose/skills"),
    (e) => [path.join(e.configHome, "goose")],
  ],
  ["junie", "Junie", ".junie/skills", home(".junie/skills"), homes(".junie")],
  ["kilo", "Kilo Code", ".kilocode/skills", home(".kilocode/skills"), homes(".kilocode")],
  ["kiro-cli", "Kiro CLI", ".kiro/skills", home(".kiro/skills"), homes(".kiro")],
  [
    "opencode",
    "OpenCode",
    CANONICAL_DIR,
    (e) => path.join(e.configHome, "opencode/skills"),
    (e) => [path.join(e.configHome, "opencode")],
  ],
  ["openhands", "OpenHands", ".openhands/skills", home(".openhands/skills"), homes(".openhands")],
  ["qwen-code", "Qwen Code", ".qwen/skills", home(".qwen/skills"), homes(".qwen")],
  ["roo", "Roo Code", ".roo/skills", home(".roo/skills"), homes(".roo")],
  ["trae", "Trae", ".trae/skills", home(".trae/skills"), homes(".trae")],
  ["windsurf", "Windsurf", ".windsurf/skills", home(".codeium/windsurf/skills"), homes(".codeium/windsurf")],
  [
    "codebuddy",
    "CodeBuddy",
    ".codebuddy/skills",
    home(".codebuddy/skills"),
    (e) => [path.join(e.cwd, ".codebuddy"), path.join(e.home, ".codebuddy")],
  ],
  ["qoder", "Qoder", ".qoder/skills", home(".qoder/skills"), homes(".qoder")],
];

// Agents reported not to list a skill folder that is a link (their scan skips links): `--copy` is what they see.
const COPILOT_LINKS = "github/copilot-cli#1021 (2026-01: /skills list shows only the real folders)";
const SKILLSHARE_LINKS =
  "runkids/skillshare#42 (2026-02: linked skills not discovered in Antigravity, Cursor, OpenCode)";
const IGNORES_LINKS: Readonly<Record<string, string>> = {
  antigravity: SKILLSHARE_LINKS,
  cursor: SKILLSHARE_LINKS,
  "github-copilot": COPILOT_LINKS,
  opencode: SKILLSHARE_LINKS,
};

// Claude Code lists skill names and descriptions within 1% of the context window (8,000 characters at 200k tokens;
// SLASH_COMMAND_TOOL_CHAR_BUDGET overrides it) and cuts one entry's description at 1,536 characters.
const CLAUDE_CATALOG: NonNullable<AgentSpec["catalog"]> = {
  maxChars: (env) => {
    const set = Number(env.SLASH_COMMAND_TOOL_CHAR_BUDGET);
    return Number.isInteger(set) && set > 0 ? set : 8000;
  },
  maxEntryChars: 1536,
  source:
    "Claude Code skill listing: 1% of a 200k context = 8,000 chars, 1,536 per entry (claude-skills-doctor 0.6.0 on PyPI; CrowdStrike/foundry-skills#30)",
};
const CATALOGS: Readonly<Record<string, NonNullable<AgentSpec["catalog"]>>> = { "claude-code": CLAUDE_CATALOG };

/** The agents table, sorted by id. */
export const AGENTS: readonly AgentSpec[] = ROWS.map(([id, displayName, projectDir, globalDir, markers]) => {
  const spec: AgentSpec = { id, displayName, projectDir, globalDir, markers, source: VERCEL };
  const ignores = IGNORES_LINKS[id];
  if (ignores !== undefined) spec.links = { followed: false, source: ignores };
  const catalog = CATALOGS[id];
  if (catalog !== undefined) spec.catalog = catalog;
  return spec;
}).sort((a, b) => (a.id < b.id ? -1 : 1));

/** The agent with this id, or undefined. */
export function findAgent(id: string): AgentSpec | undefined {
  return AGENTS.find((a) => a.id === id);
}

/** The environment from process-style variables (`HOME`, `XDG_CONFIG_HOME`, `CODEX_HOME`, `CLAUDE_CONFIG_DIR`). */
export function agentEnvironment(env: Readonly<Record<string, string | undefined>>, cwd: string): AgentEnvironment {
  const homeDir = env.HOME?.trim() || "/";
  const nonEmpty = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);
  return {
    home: homeDir,
    cwd,
    configHome: nonEmpty(env.XDG_CONFIG_HOME) ?? path.join(homeDir, ".config"),
    codexHome: nonEmpty(env.CODEX_HOME) ?? path.join(homeDir, ".codex"),
    claudeHome: nonEmpty(env.CLAUDE_CONFIG_DIR) ?? path.join(homeDir, ".claude"),
  };
}

/** The agents whose markers exist in the project or the home folder, as the skills CLI detects them. */
export function detectAgents(env: AgentEnvironment): AgentSpec[] {
  return AGENTS.filter((a) => a.markers(env).some((m) => existsSync(m)));
}

/** Where `agent` reads skills in this scope (absolute). */
export function agentSkillsDir(agent: AgentSpec, env: AgentEnvironment, global: boolean): string {
  return global ? agent.globalDir(env) : path.join(env.cwd, agent.projectDir);
}

/** Where the canonical copies live in this scope (absolute). */
export function canonicalSkillsDir(env: AgentEnvironment, global: boolean): string {
  return path.join(global ? env.home : env.cwd, CANONICAL_DIR);
}

// The settings a global folder is read from, by name, and the default each takes when unset.
const SYMBOLIC: AgentEnvironment = {
  home: "~",
  cwd: ".",
  configHome: "$XDG_CONFIG_HOME",
  codexHome: "$CODEX_HOME",
  claudeHome: "$CLAUDE_CONFIG_DIR",
};
const DEFAULTED: AgentEnvironment = {
  home: "~",
  cwd: ".",
  configHome: "~/.config",
  codexHome: "~/.codex",
  claudeHome: "~/.claude",
};

/**
 * The agents table as Markdown (id, agent, project folder, global folder): generated into the README and
 * docs/install.md by `npm run docs:agents`, and compared with them by a test, so the docs never drift from `AGENTS`.
 */
export function agentsMarkdownTable(): string {
  const rows = AGENTS.map((a) => {
    const named = a.globalDir(SYMBOLIC);
    const fallback = a.globalDir(DEFAULTED);
    const global = named === fallback ? `\`${named}\`` : `\`${named}\` (\`${fallback}\`)`;
    const links = a.links?.followed === false ? "not followed: `--copy`" : "";
    const budget = a.catalog ? `${a.catalog.maxChars({}).toLocaleString("en")} chars` : "";
    return `| ${a.id} | ${a.displayName} | \`${a.projectDir}\` | ${global} | ${links} | ${budget} |`;
  });
  const head = "| id | agent | project folder | global folder | links to a skill folder | skill listing budget |";
  return [head, "|---|---|---|---|---|---|", ...rows].join("\n") + "\n";
}
