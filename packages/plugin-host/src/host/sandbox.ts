/**
 * How a worker process is started: Node's permission model always, on top of @skillport/sandbox's policy (never host
 * root, limits; inside bubblewrap when it works). Node 20's permission model confines files, child processes and
 * worker threads but has no network switch, so network isolation comes from bubblewrap's empty network namespace
 * (and is reported, never assumed).
 */
import { sandboxedCommand, type SandboxedCommand } from "@skillport/sandbox";

export type BubblewrapMode = "auto" | "require" | "off";

/** Node 20 (and 22 before 22.13) only knows the experimental spelling of the permission flag. */
export function permissionFlag(version: string = process.versions.node): string {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 13) ? "--permission" : "--experimental-permission";
}

export interface WorkerSpec {
  /** Files and directories the worker may read (plugin, SDK, zod, worker script). */
  readPaths: readonly string[];
  /** The only directory the worker may write (also its HOME and TMPDIR). */
  writeDir: string;
  workerScript: string;
  maxHeapMb: number;
  allowNetwork: boolean;
  /** The bubblewrap binary to wrap the worker in, or undefined to run it as a plain process. */
  bwrapPath: string | undefined;
  nodePath: string;
}

/** A spawnable worker command; `dispose()` once the process is gone (releases its cgroup). */
export type Command = SandboxedCommand;

/** Memory for the whole worker (heap, buffers, code): room above the V8 heap cap, which reports its own error first. */
function workerMemoryBytes(maxHeapMb: number): number {
  return (maxHeapMb * 2 + 256) * 1024 * 1024;
}

export function workerCommand(spec: WorkerSpec): Promise<Command> {
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
  return sandboxedCommand({
    command: [spec.nodePath, ...nodeArgs],
    bwrapPath: spec.bwrapPath,
    writableDir: spec.writeDir,
    readOnlyPaths: [...spec.readPaths, ...(spec.nodePath.startsWith("/usr/") ? [] : [spec.nodePath])],
    cwd: spec.writeDir,
    keepFds: [3], // the framed channel (worker-process.ts); every other inherited descriptor is closed
    // A scrubbed environment: nothing of the host's (tokens, proxies, NODE_OPTIONS) reaches plugin code.
    env: { HOME: spec.writeDir, TMPDIR: spec.writeDir, PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
    network: spec.allowNetwork,
    maxMemoryBytes: workerMemoryBytes(spec.maxHeapMb),
    rlimitMemory: false,
  });
}
