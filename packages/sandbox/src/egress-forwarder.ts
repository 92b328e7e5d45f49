import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { EGRESS_PORT_IN_SANDBOX, EGRESS_SOCKET_IN_SANDBOX } from "./egress.js";
import { closeInheritedFds } from "./fds.js";
import { shellQuote } from "./limits.js";
import { openFilterStatement } from "./seccomp.js";

/**
 * The loopback forwarder a sandboxed program reaches the egress proxy through (HTTP(S)_PROXY needs a TCP port; the
 * proxy is a unix socket outside). Two ways to run it (decision 0430):
 * - **held by the launcher** (root hosts): the pre-started launcher starts the forwarder in a network namespace of
 *   its own, inside a sandbox of its own (bubblewrap, the dropped uid, the seccomp filter), waits until it accepts,
 *   then enters that namespace; the run's bwrap shares it instead of unsharing one. Nothing starts on the run's path.
 * - **inside the run** (other hosts, where entering the namespace needs privileges the host lacks): the command is
 *   wrapped in a shell that starts the forwarder and waits until it accepts.
 */

const SOCAT_CANDIDATES = ["/usr/bin/socat", "/usr/local/bin/socat"];
const NSENTER_CANDIDATES = ["/usr/bin/nsenter", "/bin/nsenter", "/usr/local/bin/nsenter"];
/** Folders a sandbox sees of the host (bubblewrap.ts SYSTEM_DIRS): a forwarder must live in one. */
const VISIBLE = ["/usr/", "/opt/node/", "/nix/store/"];

export interface ForwarderProgram {
  argv: string[];
  /** Node stands in for socat (tens of ms to start). */
  node: boolean;
}

/** socat where the host has it (starts in a few ms), else Node when a sandbox can see it; undefined: neither. */
export function forwarderProgram(): ForwarderProgram | undefined {
  const socat = SOCAT_CANDIDATES.find((p) => existsSync(p));
  if (socat !== undefined) {
    return {
      argv: [
        socat,
        `TCP-LISTEN:${EGRESS_PORT_IN_SANDBOX},bind=127.0.0.1,reuseaddr,fork`,
        `UNIX-CONNECT:${EGRESS_SOCKET_IN_SANDBOX}`,
      ],
      node: false,
    };
  }
  const node = process.execPath;
  if (!VISIBLE.some((dir) => node.startsWith(dir))) return undefined;
  const script = `const n=require("net");n.createServer(c=>{const u=n.connect(${JSON.stringify(EGRESS_SOCKET_IN_SANDBOX)});c.pipe(u);u.pipe(c);c.on("error",()=>u.destroy());u.on("error",()=>c.destroy())}).listen(${EGRESS_PORT_IN_SANDBOX},"127.0.0.1")`;
  return { argv: [node, "-e", script], node: true };
}

export function findNsenter(): string | undefined {
  return NSENTER_CANDIDATES.find((p) => existsSync(p));
}

/** A launcher's forwarder: the host folder bound at /run/skillport in its sandbox, where the run's proxy listens. */
export interface HeldForwarder {
  /** Where the run's proxy must listen (`EgressProxy.listenAlso`): EGRESS_SOCKET_IN_SANDBOX in the forwarder's view. */
  socketPath: string;
  /** The whole launcher script: the forwarder, the namespace switch, then `wait` (the launcher's own statements). */
  script(wait: string): string;
  /** Removes the host folder (once the launcher is gone or its run is over). */
  dispose(): void;
}

interface HeldForwarderOptions {
  bwrapPath: string;
  /** The forwarder sandbox's bwrap policy (bubblewrapArgs, network unshared), its filter read from fd 5 when given. */
  policyArgs: readonly string[];
  /** The identity drop (setpriv …): the forwarder runs as the sandbox's uid, with no capability. */
  dropArgv: readonly string[];
  forwarder: ForwarderProgram;
  nsenter: string;
  /** The seccomp filter, for `--seccomp 5` in `policyArgs`. */
  filter: Buffer | undefined;
  /** Descriptors the launcher must keep for its own later statements (its argv pipe, bwrap's filter pipe). */
  keep: readonly number[];
}

/** The descriptor the forwarder sandbox's bwrap reads its seccomp filter from. */
export const FORWARDER_FILTER_FD = 5;
const INFO_FD = 9;
const LIVE_DIRS = new Set<string>();
let exitHook = false;

/**
 * Prepares a forwarder held by a launcher. The launcher script (run after its limits prologue):
 * 1. starts bwrap (the forwarder's sandbox: new network namespace with loopback up, dropped uid, filter) with
 *    `--info-fd`, and reads the pid of the process that holds the new namespaces;
 * 2. opens that process's network namespace (a descriptor, so the pid cannot be swapped afterwards) and checks the
 *    forwarder's bwrap is still its child, then `nsenter`s it and execs a fresh bash there;
 * 3. refuses to go on in the namespace of its parent (Node's: the host network), waits until 127.0.0.1:3128 accepts
 *    (a connect, then 1 ms blocked in `read -t` — no process per look, no busy loop), and only then waits for its argv.
 * The run's bwrap then shares that namespace: no `--unshare-net`, no forwarder or wrapper shell in the run.
 */
export function holdForwarder(options: HeldForwarderOptions): HeldForwarder {
  const parent = mkdtempSync(path.join(os.tmpdir(), "skillport-forwarder-"));
  // The parent (0700) keeps other host users out; the folder itself must be searchable by the forwarder's uid.
  const dir = path.join(parent, "run");
  mkdirSync(dir, { mode: 0o711 });
  LIVE_DIRS.add(parent);
  if (!exitHook) {
    exitHook = true;
    process.once("exit", () => {
      for (const d of LIVE_DIRS) rmSync(d, { recursive: true, force: true });
    });
  }
  const holder = [
    options.bwrapPath,
    ...options.policyArgs,
    "--dir",
    "/run",
    "--ro-bind",
    dir,
    path.dirname(EGRESS_SOCKET_IN_SANDBOX),
    "--info-fd",
    String(INFO_FD),
    "--",
    ...options.dropArgv,
    ...options.forwarder.argv,
  ];
  const filter = options.filter;
  const inner = [
    `[[ /proc/self/ns/net -ef /proc/$PPID/ns/net ]] && { echo "skillport: the egress forwarder's network namespace is the host's; refusing to run" >&2; exit 125; }`,
    "exec {__z}<> <(:)",
    "__up=",
    `for ((__i=0; __i<10000; __i++)); do if exec {__c}<>/dev/tcp/127.0.0.1/${EGRESS_PORT_IN_SANDBOX}; then __up=1; exec {__c}>&-; break; fi; kill -0 $__hp || break; read -t 0.001 -u $__z; done 2>/dev/null`,
    `[ -n "$__up" ] || { echo "skillport: the egress forwarder does not accept connections" >&2; exit 125; }`,
    "exec {__z}>&-",
    "unset __hp __up __i __c __z",
  ].join("; ");
  return {
    socketPath: path.join(dir, path.basename(EGRESS_SOCKET_IN_SANDBOX)),
    script: (wait) =>
      [
        closeInheritedFds(options.keep),
        ...(filter === undefined ? [] : [openFilterStatement(filter, FORWARDER_FILTER_FD)]),
        `exec {__h}< <(${closeInheritedFds(filter === undefined ? [] : [FORWARDER_FILTER_FD])}; exec ${INFO_FD}>&1 >/dev/null 2>&1 </dev/null; exec ${holder.map(shellQuote).join(" ")})`,
        "__hp=$!",
        ...(filter === undefined ? [] : [`exec ${FORWARDER_FILTER_FD}<&-`]),
        "read -r -d '' __info <&$__h",
        "exec {__h}<&-",
        `[[ $__info =~ \\"child-pid\\":\\ *([0-9]+) ]] && exec {__n}</proc/\${BASH_REMATCH[1]}/ns/net && kill -0 $__hp || { echo "skillport: the egress forwarder did not start" >&2; exit 125; }`,
        "export __hp",
        `exec ${shellQuote(options.nsenter)} --net=/proc/self/fd/$__n -- /bin/bash -c ${shellQuote(`${inner}; ${wait}`)} bash "$@"`,
      ].join("; "),
    dispose: () => {
      if (LIVE_DIRS.delete(parent)) rmSync(parent, { recursive: true, force: true });
    },
  };
}

/**
 * The in-run forwarder (hosts where a launcher cannot hold one): a bash wrapper starts it in the background, waits
 * until it accepts (bash's own /dev/tcp connect, no process per look), runs the command, stops the forwarder and exits
 * with the command's status. argv[0] of the wrapper is `wrapperName`, which tells the trace it is Skillport's own.
 */
export function inRunForwarder(forwarder: ForwarderProgram, wrapperName: string): string[] {
  const start = `${forwarder.argv.map(shellQuote).join(" ")} </dev/null >/dev/null 2>&1 &`;
  const wait =
    `f=$!; i=0; until exec 3<>/dev/tcp/127.0.0.1/${EGRESS_PORT_IN_SANDBOX}; do kill -0 $f || break; ` +
    'i=$((i+1)); [ $i -gt 200000 ] && break; done 2>/dev/null; exec 3>&-; "$@"; c=$?; kill $f 2>/dev/null; exit $c';
  return ["/bin/bash", "-c", `${start} ${wait}`, wrapperName];
}
