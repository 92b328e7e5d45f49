// The observation record of one sandboxed run (issue 26, decision 0363): what the skill declared next to what it did,
// and every undeclared attempt as a finding with the audit's codes, so a run's findings join the static verdict.
import type { EffectivePolicy } from "@skillport/core";
import type { Finding, FindingLevel } from "./types.js";

/** One attempt through the egress proxy (the sandbox's EgressEvent, structurally). */
export interface ObservedEgress {
  kind: "connect" | "http";
  host: string;
  port: number;
  path?: string;
  method?: string;
  allowed: boolean;
  reason?: string;
  /** The request head and the start of its body (plain HTTP, when the proxy kept samples). */
  sample?: string;
}

/** What a syscall trace saw (the sandbox's TraceRecord, structurally). */
export interface ObservedTrace {
  processes: readonly string[];
  filesWritten: readonly string[];
  filesRead: readonly string[];
  connects: readonly { address: string; port: number; result: string }[];
  writesDenied?: readonly string[];
  truncated: boolean;
}

/** The facts of one run (a sandbox RunResult, structurally). */
export interface RunFacts {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  memoryLimitExceeded: boolean;
  stdoutBytes: number;
  stderrBytes: number;
  egress?: readonly ObservedEgress[];
  trace?: ObservedTrace;
}

/** A planted credential whose read or send is a finding. */
export interface Canary {
  /** A file path (as the sandbox sees it) or a variable name. */
  where: string;
  kind: "file" | "env";
  /** The unique honeytoken it holds. */
  value: string;
}

export interface ObservationRecord {
  /** What was granted: intersection(operator, declaration), with what was narrowed. */
  declared: EffectivePolicy;
  observed: {
    /** Every destination asked for through the proxy, allowed or not. */
    destinations: {
      kind: "connect" | "http";
      host: string;
      port: number;
      path?: string;
      allowed: boolean;
      reason?: string;
    }[];
    denied: number;
    /** Direct connection attempts (they fail: the network namespace has only loopback). Trace only. */
    directConnects: { address: string; port: number; result: string }[];
    /** Trace only (empty without one). */
    filesWritten: string[];
    processes: string[];
    /** Whether a syscall trace was recorded (processes, files and direct connects are known only then). */
    traced: boolean;
  };
  exit: { code: number | null; signal: string | null; timedOut: boolean };
  resources: { durationMs: number; outputBytes: number; memoryLimitExceeded: boolean };
  findings: Finding[];
}

export interface ObserveOptions {
  /** Where the run came from, for the findings (`scripts/x.sh`, `SKILL.md`). */
  file: string;
  line?: number;
  column?: number;
  canaries?: readonly Canary[];
}

/** The codes a run's findings use: the audit's own where one fits, three for what only a run can show. */
export const DYNAMIC_RULES = {
  undeclaredNetwork: {
    code: "suspicious.undeclared_network",
    level: "warn",
    fix: "declare the destination in metadata skillport.network, or remove the call",
  },
  rawIp: { code: "suspicious.raw_ip_url", level: "warn", fix: "use a host name and declare it" },
  undeclaredWrite: {
    code: "suspicious.undeclared_write",
    level: "review",
    fix: "declare the folder in metadata skillport.writes, or write to /tmp",
  },
  undeclaredProcess: {
    code: "suspicious.undeclared_process",
    level: "review",
    fix: "declare the program in metadata skillport.bins",
  },
  canaryRead: {
    code: "suspicious.credential_store_access",
    level: "warn",
    fix: "a skill should never read credential stores it was not given",
  },
  canarySent: {
    code: "malicious.credential_exfiltration",
    level: "malicious",
    fix: "remove the code that sends credentials",
  },
  persistence: {
    code: "suspicious.persistence_mechanism",
    level: "warn",
    fix: "a skill must not install cron jobs, services, hooks or keys",
  },
  shellProfile: {
    code: "suspicious.shell_profile_change",
    level: "warn",
    fix: "a skill must not change shell start-up files",
  },
} as const satisfies Record<string, { code: string; level: FindingLevel; fix: string }>;

/** The runner's own programs: never findings, whatever the declaration says. */
const RUNNER_PROGRAMS = new Set(["bash", "sh", "dash", "env", "timeout"]);

const SHELL_PROFILE =
  /(^|\/)\.(bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zprofile|zshenv|zlogin)$|(^|\/)\.config\/fish\/config\.fish$/;
const PERSISTENCE =
  /(^|\/)\.config\/systemd\/user\/|(^|\/)\.config\/autostart\/|(^|\/)\.git\/hooks\/|(^|\/)\.ssh\/authorized_keys|^\/var\/spool\/cron|^\/etc\/cron|(^|\/)\.local\/share\/systemd\/user\//;

/**
 * Whether `text` carries the honeytoken or a piece of it (16 characters or more, so a value cut into a DNS label or
 * a query still counts); percent-encoding is undone first. Honeytokens are random, so a 16-character piece is not a
 * coincidence.
 */
function leaks(text: string, value: string): boolean {
  let decoded = text;
  try {
    decoded = decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    // Keep the raw text.
  }
  const piece = Math.min(16, value.length);
  for (let i = 0; i + piece <= value.length; i++) {
    const part = value.slice(i, i + piece);
    if (text.includes(part) || decoded.includes(part)) return true;
  }
  return false;
}

const shorten = (s: string): string => (s.length > 120 ? `${s.slice(0, 117)}…` : s);

export function observeRun(declared: EffectivePolicy, run: RunFacts, options: ObserveOptions): ObservationRecord {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const add = (
    rule: (typeof DYNAMIC_RULES)[keyof typeof DYNAMIC_RULES],
    message: string,
    evidence: string,
    level: FindingLevel = rule.level,
  ): void => {
    const key = `${rule.code}\0${evidence}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push({
      code: rule.code,
      level,
      file: options.file,
      line: options.line ?? 0,
      column: options.column ?? 0,
      message,
      fix: rule.fix,
      evidence: shorten(evidence),
    });
  };
  const egress = run.egress ?? [];
  for (const e of egress) {
    if (e.allowed) continue;
    const where = `${e.host}:${e.port}${e.path ?? ""}`;
    if (e.reason?.startsWith("raw IP"))
      add(DYNAMIC_RULES.rawIp, `tried to reach a raw IP address (${e.host}:${e.port}); the proxy refused it`, where);
    else
      add(
        DYNAMIC_RULES.undeclaredNetwork,
        `asked for an undeclared destination: ${where} (${e.reason ?? "denied"})`,
        where,
      );
  }
  const trace = run.trace;
  for (const c of trace?.connects ?? []) {
    add(
      DYNAMIC_RULES.undeclaredNetwork,
      `tried a direct connection to ${c.address}:${c.port}, around the proxy (${c.result})`,
      `${c.address}:${c.port}`,
      c.port === 53 ? "review" : "warn",
    );
  }
  if (trace !== undefined) {
    for (const p of trace.processes) {
      const name = p.split("/").pop() ?? p;
      if (name === "crontab" || name === "systemctl") add(DYNAMIC_RULES.persistence, `started ${name}`, p);
      if (declared.bins === "any" || RUNNER_PROGRAMS.has(name)) continue;
      if (!declared.bins.some((b) => b === p || b === name))
        add(DYNAMIC_RULES.undeclaredProcess, `started a program it did not declare: ${p}`, p);
    }
    const writes = declared.writes;
    for (const f of [...trace.filesWritten, ...(trace.writesDenied ?? [])]) {
      if (SHELL_PROFILE.test(f)) add(DYNAMIC_RULES.shellProfile, `wrote a shell start-up file: ${f}`, f);
      else if (PERSISTENCE.test(f)) add(DYNAMIC_RULES.persistence, `wrote where programs start by themselves: ${f}`, f);
    }
    if (writes !== "workspace") {
      for (const f of trace.writesDenied ?? [])
        add(DYNAMIC_RULES.undeclaredWrite, `tried to write outside its declared folders: ${f}`, f);
    }
  }
  for (const canary of options.canaries ?? []) {
    if (canary.kind === "file" && trace?.filesRead.includes(canary.where)) {
      add(DYNAMIC_RULES.canaryRead, `read the planted credential ${canary.where}`, canary.where);
    }
    for (const e of egress) {
      const text = `${e.host} ${e.path ?? ""} ${e.sample ?? ""}`;
      if (leaks(text, canary.value)) {
        add(
          DYNAMIC_RULES.canarySent,
          `sent the planted credential from ${canary.where} to ${e.host}:${e.port}`,
          `${canary.where} → ${e.host}`,
        );
      }
    }
  }
  return {
    declared,
    observed: {
      destinations: egress.map((e) => ({
        kind: e.kind,
        host: e.host,
        port: e.port,
        allowed: e.allowed,
        ...(e.path !== undefined && { path: e.path }),
        ...(e.reason !== undefined && { reason: e.reason }),
      })),
      denied: egress.filter((e) => !e.allowed).length,
      directConnects: [...(trace?.connects ?? [])],
      filesWritten: [...(trace?.filesWritten ?? [])],
      processes: [...(trace?.processes ?? [])],
      traced: trace !== undefined,
    },
    exit: { code: run.exitCode, signal: run.signal, timedOut: run.timedOut },
    resources: {
      durationMs: run.durationMs,
      outputBytes: run.stdoutBytes + run.stderrBytes,
      memoryLimitExceeded: run.memoryLimitExceeded,
    },
    findings,
  };
}
