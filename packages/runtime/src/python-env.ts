import path from "node:path";
import type { Sandbox } from "@skillport/sandbox";

/** The most of an entrypoint read to look for pip (FastGPT's app script limit; a version's script is no longer). */
const MAX_SCAN_BYTES = 16 * 1024;

/**
 * A virtual environment per deployed version, so FastGPT's own entrypoint (`pip install -r requirements.txt`) works
 * on a distribution whose system Python refuses installs (PEP 668: Debian, Ubuntu, Fedora…). Decision 0271.
 *
 * The environment is the version's own `.venv` (`projects/<versionId>/.venv`, where an entrypoint installs into its
 * own version; extra files there are allowed and never verified, and it goes when the version goes). It is made by
 * sandboxed code (`python3 -m venv --system-site-packages`, so the system's packages stay visible) and is first on
 * PATH for the version's entrypoint and for every command whose working folder is inside the version. The host never
 * writes into it.
 */
export const VENV_DIR = ".venv";
/** PATH inside the sandbox when the caller sets none: the system's, as the sandbox itself uses. */
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Absolute path of a version's environment (it may not exist yet). */
function venvPath(root: string, versionId: string): string {
  return path.join(root, "projects", versionId, VENV_DIR);
}

/** The variables that put a version's environment first on PATH, on top of the caller's. */
export function versionEnv(
  root: string,
  versionId: string,
  env: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  return { ...env, PATH: `${path.join(venvPath(root, versionId), "bin")}:${env?.PATH ?? SYSTEM_PATH}` };
}

/** The version whose folder a working directory (relative to the workspace root, `/`-separated) lies in. */
export function versionOfCwd(cwdRel: string | undefined): string | undefined {
  const parts = (cwdRel ?? "").split("/").filter((s) => s !== "" && s !== ".");
  return parts[0] === "projects" && parts[1] !== undefined && parts[1] !== ".." ? parts[1] : undefined;
}

/** Whether a version's entrypoint installs Python packages: a root requirements.txt, or pip named in the script. */
export async function usesPip(versionDir: string, entrypointFile: string): Promise<boolean> {
  // Loaded here: `exec` imports this module and must not load the tree reader (decision 0202).
  const { openConfined } = await import("@skillport/fs");
  // The version folder is sandbox-writable: files are opened without following links, as regular files only.
  const read = (name: string): Uint8Array | undefined => {
    try {
      const file = openConfined(versionDir, name);
      try {
        return file.readAllSync(MAX_SCAN_BYTES) ?? new Uint8Array();
      } finally {
        file.close();
      }
    } catch {
      return undefined;
    }
  };
  if (read("requirements.txt") !== undefined) return true;
  const script = read(entrypointFile);
  return script !== undefined && /(^|[^\w-])pip3?(\s|$)|-m\s+pip\b/m.test(new TextDecoder().decode(script));
}

/**
 * Makes the version's environment inside the sandbox unless it already has a python3. Fast path (a third of a
 * second): an environment without its own pip whose `pip`/`pip3` run the system's pip module inside it — pip installs
 * into the environment it runs in, and PEP 668 does not apply there. Without a system pip, `ensurepip` copies one in
 * (tens of seconds). Returns undefined on success, or the reason it could not be made (the entrypoint then runs
 * without it and its outcome says why it failed).
 */
export async function ensureVenv(sandbox: Sandbox, versionId: string, timeoutMs: number): Promise<string | undefined> {
  const dir = venvPath(sandbox.writableDir, versionId);
  const script = [
    '[ -x "$1/bin/python3" ] && exit 0',
    'command -v python3 >/dev/null || { echo "python3 is not installed" >&2; exit 3; }',
    'if python3 -c "import pip" 2>/dev/null; then',
    '  python3 -m venv --without-pip --system-site-packages "$1" || exit',
    '  for p in pip pip3; do printf \'#!/bin/sh\\nexec "$(dirname "$0")/python3" -m pip "$@"\\n\' > "$1/bin/$p" && chmod 755 "$1/bin/$p" || exit; done',
    "else",
    '  exec python3 -m venv --system-site-packages "$1"',
    "fi",
  ].join("\n");
  try {
    const r = await sandbox.run({
      command: ["/bin/sh", "-c", script, "sh", dir],
      cwd: sandbox.writableDir,
      timeoutMs,
      maxStdoutBytes: 4096,
      maxStderrBytes: 4096,
    });
    if (r.timedOut) return `making the Python environment timed out after ${timeoutMs / 1000} s`;
    if (r.exitCode === 0) return undefined;
    const said = r.stderr.trim().split("\n").pop() ?? "";
    return `the Python environment could not be made (${said || `exit ${r.exitCode}`}); on Debian/Ubuntu install python3-venv`;
  } catch (error) {
    return `the Python environment could not be made: ${error instanceof Error ? error.message : String(error)}`;
  }
}
