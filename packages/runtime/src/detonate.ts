import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  effectivePolicy,
  isSafeResourcePath,
  parseFrontmatter,
  readDeclaration,
  type OperatorPolicy,
} from "@skillport/core";
import { openPinnedDir } from "@skillport/fs";
import type { Canary, Finding, ObservationRecord } from "@skillport/audit";
import { createSandbox, type SandboxKind } from "@skillport/sandbox";
import { runWithPolicy } from "./least-privilege.js";

/**
 * Detonation (`skillport audit --dynamic`, decision 0365): a skill's entrypoint, its scripts (`--help` and no
 * arguments) and the shell commands its SKILL.md tells the agent to run are run in the sandbox, with planted
 * credentials (a fake ~/.aws/credentials, ~/.ssh/id_ed25519, .env, token variables with unique honeytokens) and the
 * egress proxy denying and logging everything the operator did not allow. Reads and sends of a canary, egress
 * attempts and persistence attempts become findings with the audit's codes.
 */
export interface DetonationOptions {
  /** Time for the whole skill (ms). Default 10 s. */
  timeoutMs?: number;
  /** Most commands run per skill. Default 24. */
  maxCommands?: number;
  sandbox?: SandboxKind | "auto";
  /** What the operator allows (default nothing: every egress attempt is denied and logged). */
  operator?: OperatorPolicy;
  /** syscall trace (file reads, writes, processes, direct connects). Default true (needs strace). */
  trace?: boolean;
}

export interface SkillFile {
  path: string;
  bytes: Uint8Array;
}

export interface DetonationRun {
  /** `entrypoint.sh`, `scripts/x.py --help`, `SKILL.md:12`. */
  label: string;
  command: string;
  record: ObservationRecord;
}

export interface DetonationReport {
  runs: DetonationRun[];
  /** Every run's findings, once each, plus persistence left behind. */
  findings: Finding[];
  /** Commands not run: out of time or past `maxCommands`. */
  skipped: string[];
  durationMs: number;
  warnings: string[];
}

export const DEFAULT_DETONATION_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_COMMANDS = 24;
const SHELL_FENCES = new Set(["sh", "bash", "shell", "console", "zsh", "terminal", "shellscript"]);
const COMMAND_WORDS =
  /^(curl|wget|bash|sh|zsh|python3?|pip3?|node|npm|npx|pnpm|yarn|bun|bunx|uv|uvx|git|chmod|mkdir|cp|mv|echo|cat|tar|unzip|sudo|brew|apt(-get)?|go|cargo|deno|docker|make|\.\/\S+|scripts\/\S+)(\s|$)/;
const INTERPRETERS: Record<string, string> = {
  ".sh": "bash",
  ".bash": "bash",
  ".py": "python3",
  ".js": "node",
  ".mjs": "node",
  ".cjs": "node",
  ".rb": "ruby",
  ".pl": "perl",
};

interface PlannedCommand {
  label: string;
  line?: number;
  command: string;
}

/** The commands to run: entrypoint, scripts, then SKILL.md's shell lines, in that order. */
export function detonationCommands(files: readonly SkillFile[]): PlannedCommand[] {
  const planned: PlannedCommand[] = [];
  const names = new Set(files.map((f) => f.path));
  if (names.has("entrypoint.sh")) planned.push({ label: "entrypoint.sh", command: "bash entrypoint.sh" });
  for (const f of files) {
    if (!f.path.startsWith("scripts/") || f.path.split("/").length > 3) continue;
    const ext = path.posix.extname(f.path);
    const shebang = new TextDecoder().decode(f.bytes.subarray(0, 2)) === "#!";
    const interpreter = INTERPRETERS[ext];
    if (interpreter === undefined && !shebang) continue;
    const run = interpreter === undefined ? `./${quote(f.path)}` : `${interpreter} ${quote(f.path)}`;
    planned.push({ label: `${f.path} --help`, command: `${run} --help` }, { label: f.path, command: run });
  }
  const skillMd = files.find((f) => f.path === "SKILL.md" || f.path === "skill.md");
  if (skillMd !== undefined) planned.push(...instructedCommands(new TextDecoder().decode(skillMd.bytes)));
  return planned;
}

/** Shell lines of fenced blocks in a shell language, and inline code spans that start with a command word. */
function instructedCommands(text: string): PlannedCommand[] {
  const out: PlannedCommand[] = [];
  const lines = text.split(/\r?\n/);
  let fence: { marker: string; shell: boolean } | undefined;
  let pending = "";
  let pendingLine = 0;
  for (const [i, raw] of lines.entries()) {
    const open = /^\s{0,3}(`{3,}|~{3,})\s*([\w-]*)/.exec(raw);
    if (fence === undefined && open) {
      fence = { marker: open[1]!, shell: SHELL_FENCES.has(open[2]!.toLowerCase()) };
      continue;
    }
    if (fence !== undefined) {
      if (raw.trim().startsWith(fence.marker)) {
        fence = undefined;
        continue;
      }
      if (!fence.shell) continue;
      const line = raw.replace(/^\s*[$>#]\s+(?=\S)/, (m) => (m.trim() === "#" ? "# " : "")).trimEnd();
      if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
      if (pending === "") pendingLine = i + 1;
      if (line.endsWith("\\")) {
        pending += `${line.slice(0, -1)} `;
        continue;
      }
      out.push({ label: `SKILL.md:${pendingLine}`, line: pendingLine, command: pending + line.trim() });
      pending = "";
      continue;
    }
    for (const m of raw.matchAll(/`([^`\n]+)`/g)) {
      const span = m[1]!.trim();
      if (COMMAND_WORDS.test(span) && span.includes(" "))
        out.push({ label: `SKILL.md:${i + 1}`, line: i + 1, command: span });
    }
  }
  return out;
}

function quote(p: string): string {
  return `'${p.replace(/'/g, "'\\''")}'`;
}

const honeytoken = (prefix: string): string => `${prefix}${randomBytes(12).toString("hex")}`;

/** Runs the skill's commands in a fresh sandbox with canaries; everything is removed afterwards. */
export async function detonateSkill(
  files: readonly SkillFile[],
  options: DetonationOptions = {},
): Promise<DetonationReport> {
  const started = Date.now();
  const budget = options.timeoutMs ?? DEFAULT_DETONATION_TIMEOUT_MS;
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "skillport-detonate-")));
  try {
    const ws = path.join(root, "ws");
    const skillDir = path.join(ws, "skill");
    const home = path.join(ws, "home");
    for (const f of files) {
      if (!isSafeResourcePath(f.path) && f.path !== "SKILL.md") continue;
      const dir = openPinnedDir(root, path.posix.join("ws/skill", path.posix.dirname(f.path)), { create: true });
      try {
        const executable = f.path.startsWith("scripts/") || f.path === "entrypoint.sh";
        dir.replaceFile(path.posix.basename(f.path), f.bytes, executable ? 0o755 : 0o644);
      } finally {
        dir.close();
      }
    }
    const canaries = plantCanaries(root, ws, home);
    // The dropped sandbox uid walks down to its workspace: the temporary folder must be passable.
    chmodSync(root, 0o755);
    const skillMd = files.find((f) => f.path === "SKILL.md" || f.path === "skill.md");
    const frontmatter = skillMd === undefined ? undefined : parseFrontmatter(skillMd.bytes).frontmatter;
    const declared = readDeclaration(frontmatter?.metadata).declaration;
    const base = effectivePolicy(options.operator ?? {}, declared);
    // Every canary variable reaches the commands, declared or not: reading one is what is being watched for.
    const envCanaries = canaries.filter((c) => c.kind === "env");
    const policy = { ...base, declared: true, env: [...base.env, ...envCanaries.map((c) => c.where)] };
    const env = Object.fromEntries(envCanaries.map((c) => [c.where, c.value]));
    const sandbox = createSandbox({ kind: options.sandbox ?? "auto", writableDir: ws, home, prewarmEgress: true });
    const planned = detonationCommands(files);
    const maxCommands = options.maxCommands ?? DEFAULT_MAX_COMMANDS;
    const runs: DetonationRun[] = [];
    const skipped: string[] = [];
    const warnings = new Set<string>();
    try {
      for (const [i, p] of planned.entries()) {
        const left = budget - (Date.now() - started);
        if (i >= maxCommands || left < 200) {
          skipped.push(p.label);
          continue;
        }
        const { result, observation } = await runWithPolicy(
          sandbox,
          {
            command: ["/bin/bash", "-c", p.command],
            cwd: skillDir,
            env,
            timeoutMs: left,
            mergeStderr: true,
            maxStdoutBytes: 4096,
          },
          {
            policy,
            trace: options.trace ?? true,
            canaries,
            keepSamples: true,
            label: p.label.replace(/ --help$|:\d+$/, ""),
            ...(p.line !== undefined && { line: p.line }),
          },
        );
        for (const w of result.warnings) if (!w.startsWith("variables not declared")) warnings.add(w);
        runs.push({ label: p.label, command: p.command, record: observation });
      }
    } finally {
      await sandbox.close();
    }
    const findings: Finding[] = [];
    const seen = new Set<string>();
    for (const f of [...runs.flatMap((r) => r.record.findings), ...persistenceLeft(ws, home)]) {
      const key = `${f.code}\0${f.evidence}`;
      if (!seen.has(key)) findings.push(f);
      seen.add(key);
    }
    return { runs, findings, skipped, durationMs: Date.now() - started, warnings: [...warnings] };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Fake credentials with unique values: files in HOME and the workspace, and token variables. */
function plantCanaries(root: string, ws: string, home: string): Canary[] {
  const plant = (rel: string, name: string, text: string, mode = 0o644): void => {
    const dir = openPinnedDir(root, rel, { create: true });
    try {
      dir.replaceFile(name, text, mode);
    } finally {
      dir.close();
    }
  };
  const aws = honeytoken("skpcanaryAWS");
  const ssh = honeytoken("skpcanarySSH");
  const dotenv = honeytoken("skpcanaryENV");
  plant(
    "ws/home/.aws",
    "credentials",
    `[default]\naws_access_key_id = AKIA${aws.slice(-16).toUpperCase()}\naws_secret_access_key = ${aws}\n`,
  );
  plant(
    "ws/home/.ssh",
    "id_ed25519",
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${ssh}\n-----END OPENSSH PRIVATE KEY-----\n`,
  );
  plant("ws", ".env", `API_KEY=${dotenv}\n`);
  const tokens = ["GITHUB_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN"].map(
    (name): Canary => ({ kind: "env", where: name, value: honeytoken("skpcanary") }),
  );
  return [
    { kind: "file", where: path.join(home, ".aws/credentials"), value: aws },
    { kind: "file", where: path.join(home, ".ssh/id_ed25519"), value: ssh },
    { kind: "file", where: path.join(ws, ".env"), value: dotenv },
    ...tokens,
  ];
}

/** Persistence files present after the runs (known without a trace too). */
function persistenceLeft(ws: string, home: string): Finding[] {
  const found: Finding[] = [];
  const check = (p: string, code: "suspicious.shell_profile_change" | "suspicious.persistence_mechanism"): void => {
    try {
      statSync(p);
    } catch {
      return;
    }
    found.push({
      code,
      level: "warn",
      file: "run",
      line: 0,
      column: 0,
      message: `left ${path.relative(ws, p)} behind`,
      evidence: path.relative(ws, p),
      fix:
        code === "suspicious.shell_profile_change"
          ? "a skill must not change shell start-up files"
          : "a skill must not install cron jobs, services, hooks or keys",
    });
  };
  for (const rc of [".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", ".config/fish/config.fish"])
    check(path.join(home, rc), "suspicious.shell_profile_change");
  for (const p of [".config/systemd/user", ".config/autostart", ".ssh/authorized_keys", ".local/share/systemd/user"])
    check(path.join(home, p), "suspicious.persistence_mechanism");
  check(path.join(ws, "skill/.git/hooks"), "suspicious.persistence_mechanism");
  return found;
}
