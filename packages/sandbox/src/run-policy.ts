import { closeSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { InvalidPathError } from "@skillport/core";
import { isInside, openPinnedDir, type FileOwner } from "@skillport/fs";
import { EGRESS_PORT_IN_SANDBOX, EGRESS_SOCKET_IN_SANDBOX, type EgressProxy } from "./egress.js";
import { forwarderProgram, inRunForwarder } from "./egress-forwarder.js";
import { SandboxUnavailableError } from "./errors.js";
import { findStrace, parseTrace, straceArgv, TRACE_FILE_IN_SANDBOX, type TraceRecord } from "./trace.js";

/** What one bubblewrap run adds to the sandbox's policy for a request's egress, writes and trace (decision 0361). */
export interface RunPolicyPlan {
  /** bwrap arguments after the sandbox's own (binds on top of its mounts). */
  bwrapArgs: string[];
  /** Variables set after the caller's. */
  env: Record<string, string>;
  /** argv before the identity drop (runs with the sandbox's starting identity). */
  outer: string[];
  /** argv after the identity drop, before the command. */
  inner: string[];
  /** Reads what the run left (the trace) and removes host-side files. Call once, after the run. */
  finish(): { trace?: TraceRecord };
}

interface RunPolicyRequest {
  egress?: EgressProxy;
  writes?: readonly string[];
  trace?: boolean;
}

interface SandboxSide {
  writableDir: string;
  home: string;
  network: boolean;
  /** Root hosts: folders made for declared writes go to the sandbox's identity. */
  owner?: FileOwner;
  /** The identity drop's argv (setpriv …), left out of the traced programs. */
  dropArgv: readonly string[];
  /** The run's launcher holds the forwarder (its network namespace is the run's): nothing to start in the run. */
  forwarderHeld?: boolean;
}

/** argv[0] of the egress wrapper shell, which tells the trace it is Skillport's own. */
const EGRESS_WRAPPER_NAME = "skillport-egress";

const PROXY_URL = `http://127.0.0.1:${EGRESS_PORT_IN_SANDBOX}`;

/** Undefined when the request asks for none of egress, writes, trace. */
export function runPolicy(request: RunPolicyRequest, side: SandboxSide, warnings: string[]): RunPolicyPlan | undefined {
  if (request.egress === undefined && request.writes === undefined && request.trace !== true) return undefined;
  const bwrapArgs: string[] = [];
  const env: Record<string, string> = {};
  const outer: string[] = [];
  const inner: string[] = [];
  const cleanups: (() => void)[] = [];
  let traceFile: string | undefined;
  let runDirMade = false;
  const runDir = (): void => {
    if (!runDirMade) bwrapArgs.push("--dir", "/run", "--dir", "/run/skillport");
    runDirMade = true;
  };

  if (request.egress !== undefined) {
    if (side.network) warnings.push("the sandbox has the host's network: the egress proxy is not the only way out");
    for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"])
      env[name] = PROXY_URL;
    env.NO_PROXY = "";
    env.no_proxy = "";
    if (side.forwarderHeld !== true) {
      const forwarder = forwarderProgram();
      if (forwarder === undefined) {
        throw new SandboxUnavailableError(
          "the egress proxy needs socat (apt-get install socat) or a Node installed under /usr inside the sandbox",
        );
      }
      if (forwarder.node)
        warnings.push("egress forwarder: socat is not installed, Node is used (about 40 ms more per run)");
      runDir();
      bwrapArgs.push("--ro-bind", request.egress.socketPath, EGRESS_SOCKET_IN_SANDBOX);
      inner.push(...inRunForwarder(forwarder, EGRESS_WRAPPER_NAME));
    }
  }

  if (request.writes !== undefined) {
    bwrapArgs.push("--remount-ro", side.writableDir);
    for (const rel of request.writes) bwrapArgs.push("--bind", ...twice(writableFolder(side, rel)));
    if (side.home !== side.writableDir) bwrapArgs.push("--bind", side.home, side.home);
  }

  if (request.trace === true) {
    const strace = findStrace();
    if (strace === undefined)
      warnings.push("trace asked for but strace is not installed (apt-get install strace): no trace recorded");
    else {
      const dir = mkdtempSync(path.join(os.tmpdir(), "skillport-trace-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      traceFile = path.join(dir, "trace");
      closeSync(openSync(traceFile, "wx", 0o600));
      runDir();
      bwrapArgs.push("--bind", traceFile, TRACE_FILE_IN_SANDBOX);
      // Root hosts: strace runs before the identity drop (host uid 0, no other capability), so the traced code
      // (uid 65534) can neither write the trace nor signal strace; reading the memory of a process of another uid
      // needs CAP_SYS_PTRACE, which only strace holds (setpriv clears every set of the command it starts).
      if (side.dropArgv.length > 0) bwrapArgs.push("--cap-add", "CAP_SYS_PTRACE");
      outer.push(...straceArgv(strace));
    }
  }

  // strace prints argv[0] of the drop (e.g. "setpriv") as given: the first word after the program.
  const dropProgram = side.dropArgv[0] === undefined ? undefined : side.dropArgv[0];
  let finished = false;
  return {
    bwrapArgs,
    env,
    outer,
    inner,
    finish() {
      if (finished) return {};
      finished = true;
      try {
        if (traceFile === undefined) return {};
        const text = readFileSync(traceFile, "utf8");
        return {
          trace: parseTrace(text, {
            ownConnect: (address, port) =>
              request.egress !== undefined && address === "127.0.0.1" && port === EGRESS_PORT_IN_SANDBOX,
            ownProgram: (argv) =>
              argv.includes(EGRESS_WRAPPER_NAME) ||
              argv.some((a) => a.includes(EGRESS_SOCKET_IN_SANDBOX)) ||
              (dropProgram !== undefined && argv[0] === dropProgram),
          }),
        };
      } finally {
        for (const c of cleanups) c();
      }
    },
  };
}

function twice(p: string): [string, string] {
  return [p, p];
}

/**
 * A declared folder inside the writable directory, made if missing (opened link by link: a link planted on the way
 * is refused, never followed), returned as its real path.
 */
function writableFolder(side: SandboxSide, rel: string): string {
  if (path.isAbsolute(rel) || rel.split("/").includes("..") || rel.includes("\0"))
    throw new InvalidPathError(rel, "a writable folder must be relative to the workspace");
  const dir = openPinnedDir(side.writableDir, rel, {
    create: true,
    ...(side.owner !== undefined && { owner: side.owner }),
  });
  try {
    const real = realpathSync(dir.self());
    if (!isInside(side.writableDir, real)) throw new InvalidPathError(rel, "a writable folder escapes the workspace");
    return real;
  } finally {
    dir.close();
  }
}
