import { existsSync } from "node:fs";

/**
 * What a run did, read from `strace -f` inside the sandbox (decision 0362): programs started, files opened for
 * writing (and created, renamed, removed), files read outside the system folders, and direct connection attempts
 * (which the unshared network namespace refuses; the proxy's log has the ones that went through it).
 */
export interface TraceRecord {
  /** Programs successfully started (execve), in order of first start. */
  processes: string[];
  /** Files opened for writing, created, renamed to/from, removed, or folders made (absolute paths in the sandbox). */
  filesWritten: string[];
  /** Writes refused (EROFS, EACCES, EPERM): the path asked for. */
  writesDenied: string[];
  /** Files opened for reading, outside /usr, /lib*, /proc, /sys, /dev and the loader's /etc files. */
  filesRead: string[];
  /** connect() calls to IP addresses (not the in-sandbox forwarder): "connected", "in progress" or the error name. */
  connects: { address: string; port: number; result: string }[];
  /** More distinct entries than kept. */
  truncated: boolean;
}

const MAX_ENTRIES = 2000;
const STRACE_CANDIDATES = ["/usr/bin/strace", "/usr/local/bin/strace"];
/** Where the trace file appears inside the sandbox. */
export const TRACE_FILE_IN_SANDBOX = "/run/skillport/trace";

export function findStrace(): string | undefined {
  return STRACE_CANDIDATES.find((p) => existsSync(p));
}

/** The strace command put in front of the sandboxed command (before the identity drop, so the trace file stays the host's). */
export function straceArgv(strace: string): string[] {
  return [
    strace,
    "-f",
    "-qq",
    "-y",
    "-s",
    "256",
    "-e",
    "signal=none",
    "-e",
    "trace=execve,connect,open,openat,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,link,linkat,symlink,symlinkat",
    "-o",
    TRACE_FILE_IN_SANDBOX,
    "--",
  ];
}

const SYSTEM_READ =
  /^\/(usr|lib|lib32|lib64|libx32|bin|sbin|proc|sys|dev|nix\/store|opt\/node)(\/|$)|^\/etc\/(ld\.so|localtime|nsswitch|passwd|group|ssl|ca-certificates|alternatives|gai\.conf|hosts|resolv\.conf|host\.conf)/;
const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/;

/** Parses strace's output (the options of `straceArgv`). Lines it does not understand are skipped. */
export interface TraceFilter {
  /** A connect() of Skillport's own (to the in-sandbox forwarder). */
  ownConnect(address: string, port: number): boolean;
  /** An execve of Skillport's own (the identity drop, the forwarder and its wrapper), by argv. */
  ownProgram(argv: readonly string[]): boolean;
}

export function parseTrace(text: string, filter: TraceFilter): TraceRecord {
  const processes = new Set<string>();
  const written = new Set<string>();
  const denied = new Set<string>();
  const read = new Set<string>();
  const connects: TraceRecord["connects"] = [];
  let truncated = false;
  const add = (set: Set<string>, value: string): void => {
    if (set.has(value)) return;
    if (set.size >= MAX_ENTRIES) truncated = true;
    else set.add(value);
  };
  // With -f, a call another process interrupts is split: `PID call(args <unfinished ...>`, later
  // `PID <... call resumed>rest`. The halves are joined per process.
  const pending = new Map<string, string>();
  for (const raw of text.split("\n")) {
    const pid = /^(\d+)\s+/.exec(raw)?.[1] ?? "";
    let line = raw.replace(/^\d+\s+/, "");
    if (line.endsWith(" <unfinished ...>")) {
      pending.set(pid, line.slice(0, -" <unfinished ...>".length));
      continue;
    }
    const resumed = /^<\.\.\. [a-z0-9_]+ resumed>(.*)$/.exec(line);
    if (resumed) {
      line = (pending.get(pid) ?? "") + resumed[1];
      pending.delete(pid);
    }
    const call = /^([a-z0-9_]+)\((.*)\)\s+=\s+(-?\d+|\?)(?:<([^>]*)>)?/.exec(line);
    if (!call) continue;
    const [, name, args = "", ret = "", retPath] = call;
    const ok = ret !== "?" && !ret.startsWith("-");
    const strings = [...args.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => unescape(m[1]!));
    const fdPaths = [...args.matchAll(/<([^>]*)>/g)].map((m) => m[1]!);
    switch (name) {
      case "execve":
        if (ok && strings[0] !== undefined && !filter.ownProgram(strings.slice(1))) add(processes, strings[0]);
        break;
      case "open":
      case "openat":
      case "creat": {
        const writing = name === "creat" || WRITE_FLAGS.test(args);
        if (!ok) {
          const target = resolveAt(fdPaths[0], strings[0]);
          if (writing && target !== undefined && /= -1 (EROFS|EACCES|EPERM)/.test(line)) add(denied, target);
          break;
        }
        const target = retPath ?? resolveAt(fdPaths[0], strings[0]);
        if (target === undefined) break;
        if (writing) add(written, target);
        else if (!SYSTEM_READ.test(target)) add(read, target);
        break;
      }
      case "rename":
      case "renameat":
      case "renameat2":
      case "link":
      case "linkat":
      case "symlink":
      case "symlinkat":
      case "unlink":
      case "unlinkat":
      case "mkdir":
      case "mkdirat": {
        const target =
          name.startsWith("unlink") || name.startsWith("mkdir")
            ? resolveAt(fdPaths[0], strings[0])
            : resolveAt(fdPaths[1] ?? fdPaths[0], strings[1]);
        if (target === undefined) break;
        if (ok) add(written, target);
        else if (/= -1 (EROFS|EACCES|EPERM)/.test(line)) add(denied, target);
        break;
      }
      case "connect": {
        const v4 = /sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)/.exec(args);
        const v6 = /sin6_port=htons\((\d+)\).*inet_pton\(AF_INET6, "([^"]+)"/.exec(args);
        const hit = v4 ?? v6;
        if (!hit) break;
        const port = Number(hit[1]);
        const address = hit[2]!;
        if (filter.ownConnect(address, port)) break;
        const result = ok
          ? "connected"
          : /EINPROGRESS/.test(line)
            ? "in progress"
            : (/= -1 ([A-Z]+)/.exec(line)?.[1] ?? "failed");
        if (connects.length < MAX_ENTRIES) connects.push({ address, port, result });
        else truncated = true;
        break;
      }
    }
  }
  return {
    processes: [...processes],
    filesWritten: [...written],
    writesDenied: [...denied],
    filesRead: [...read],
    connects,
    truncated,
  };
}

/** A path argument made absolute with the directory strace printed for the `*at` call's descriptor (`AT_FDCWD</x>`). */
function resolveAt(dir: string | undefined, p: string | undefined): string | undefined {
  if (p === undefined) return undefined;
  if (p.startsWith("/")) return p;
  if (dir === undefined) return undefined;
  return `${dir.replace(/\/$/, "")}/${p}`.replace(/\/\.\//g, "/");
}

function unescape(s: string): string {
  return s.replace(/\\(x[0-9a-f]{2}|[0-7]{1,3}|.)/gi, (_m, e: string) => {
    if (e[0] === "x" || e[0] === "X") return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]+$/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return e === "n" ? "\n" : e === "t" ? "\t" : e;
  });
}
