/**
 * How a worker process is started: Node's permission model always, inside bubblewrap when it is available.
 * Node 20's permission model confines files, child processes and worker threads but has no network switch,
 * so network isolation comes from bubblewrap's empty network namespace (and is reported, never assumed).
 */
import { execFile } from "node:child_process";
import { lstatSync, readlinkSync } from "node:fs";
import { isAbsolute } from "node:path";

export type BubblewrapMode = "auto" | "require" | "off";

/** Node 20 (and 22 before 22.13) only knows the experimental spelling of the permission flag. */
export function permissionFlag(version: string = process.versions.node): string {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 13) ? "--permission" : "--experimental-permission";
}

export interface SandboxSpec {
  /** Files and directories the worker may read (plugin, SDK, zod, worker script). */
  readPaths: readonly string[];
  /** The only directory the worker may write (also its HOME and TMPDIR). */
  writeDir: string;
  workerScript: string;
  maxHeapMb: number;
  allowNetwork: boolean;
  /** The bubblewrap binary to wrap the worker in, or undefined to run it directly. */
  bwrapPath: string | undefined;
  nodePath: string;
}

export interface Command {
  file: string;
  args: string[];
  env: Record<string, string>;
}

const NAMESPACES = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"];
const NETWORK_ETC_FILES = ["/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf"];

export function workerCommand(spec: SandboxSpec): Command {
  const nodeArgs = [
    permissionFlag(), // --experimental-permission on Node 20

    ...spec.readPaths.map((path) => `--allow-fs-read=${path}`),
    `--allow-fs-read=${spec.writeDir}`,
    `--allow-fs-write=${spec.writeDir}`,
    `--max-old-space-size=${spec.maxHeapMb}`,
    // The permission model's ExperimentalWarning is noise in captured stderr.
    "--no-warnings",
    spec.workerScript,
  ];
  // A scrubbed environment: nothing of the host's (tokens, proxies, NODE_OPTIONS) reaches plugin code.
  const env = { HOME: spec.writeDir, TMPDIR: spec.writeDir, PATH: "/usr/bin:/bin", LANG: "C.UTF-8" };
  if (spec.bwrapPath === undefined) return { file: spec.nodePath, args: nodeArgs, env };
  return { file: spec.bwrapPath, args: [...bubblewrapArgs(spec), "--", spec.nodePath, ...nodeArgs], env };
}

/**
 * A minimal root: system libraries read-only, the allowed read paths read-only, the temp dir writable,
 * fresh /dev, /proc and /tmp, new user/pid/ipc/uts/cgroup (and, unless allowed, network) namespaces, and no
 * capabilities (the host may run as root; the worker must not hold root's powers).
 */
function bubblewrapArgs(spec: SandboxSpec): string[] {
  const args = ["--die-with-parent", "--new-session", "--cap-drop", "ALL", ...NAMESPACES];
  if (!spec.allowNetwork) args.push("--unshare-net");
  args.push("--ro-bind", "/usr", "/usr");
  for (const top of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) args.push(...systemDir(top));
  args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  // Name resolution needs these once the network is allowed; nothing else of /etc is visible.
  if (spec.allowNetwork) for (const file of NETWORK_ETC_FILES) args.push("--ro-bind-try", file, file);
  if (!spec.nodePath.startsWith("/usr/")) args.push("--ro-bind", spec.nodePath, spec.nodePath);
  for (const path of spec.readPaths) args.push("--ro-bind", path, path);
  args.push("--bind", spec.writeDir, spec.writeDir, "--chdir", spec.writeDir);
  return args;
}

/** Merged-/usr systems make /lib a symlink; recreate the link instead of binding its target twice. */
function systemDir(path: string): string[] {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return ["--symlink", readlinkSync(path), path];
    if (stat.isDirectory()) return ["--ro-bind", path, path];
  } catch {
    // absent on this system
  }
  return [];
}

/**
 * Wraps a command so it cannot reach the network: the whole file system read-only as it is, an empty network
 * namespace, no capabilities. Used while a build imports a bundle, when the plugin's top-level code runs.
 */
export function withoutNetwork(bwrapPath: string, file: string, args: readonly string[], cwd: string): { file: string; args: string[] } {
  return {
    file: bwrapPath,
    args: ["--die-with-parent", "--cap-drop", "ALL", ...NAMESPACES, "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--chdir", cwd, "--", file, ...args],
  };
}

let probe: Promise<string | undefined> | undefined;

/**
 * The path of a working bubblewrap, or undefined. Working means it can really create the namespaces we use
 * (unprivileged user namespaces are disabled on some hosts), checked once per process.
 */
export function findBubblewrap(): Promise<string | undefined> {
  probe ??= (async () => {
    for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(":")) {
      if (!isAbsolute(dir)) continue;
      const candidate = `${dir}/bwrap`;
      const ok = await new Promise<boolean>((resolve) => {
        execFile(
          candidate,
          ["--die-with-parent", "--cap-drop", "ALL", ...NAMESPACES, "--unshare-net", "--ro-bind", "/", "/", "--proc", "/proc", "--", "/bin/true"],
          { timeout: 5_000 },
          (error) => resolve(error === null),
        );
      });
      if (ok) return candidate;
    }
    return undefined;
  })();
  return probe;
}
