import { readFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { errorCode, isMissing, parseStateText, writeFileAtomic } from "@skillport/fs";
import { stateDir } from "./state-dir.js";

/**
 * Successful bubblewrap probes remembered across processes, so a one-shot CLI command does not pay for a whole extra
 * sandbox start. Host-only state: a file in this user's own state directory (state-dir.ts); without one the cache is
 * simply not used. Only successes are stored: a forged entry could make a run fail
 * loudly, never make `auto` fall back to the non-isolating backend; bwrap's features are always read from the binary. The key names everything a success depends on:
 * the bwrap binary (device, inode, size, mtime), the kernel boot, the uid, setpriv and the policy revision.
 * A hit needs one thing of the file: `true` under this key (anything else is a miss, and a probe). The whole file is
 * read through its schema on the way to writing it (decision 0321): a malformed one is said once (a process warning)
 * and rewritten. Only there is zod loaded: `exec`'s start-up never pays for it (a probe costs far more).
 */
const POLICY_REVISION = 2; // 2: the seccomp filter

export function probeKey(bwrapPath: string, setpriv: string | undefined): string | undefined {
  try {
    const bin = statSync(bwrapPath);
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    return JSON.stringify([
      POLICY_REVISION,
      bwrapPath,
      bin.dev,
      bin.ino,
      bin.size,
      bin.mtimeMs,
      boot,
      process.getuid?.(),
      setpriv ?? null,
    ]);
  } catch {
    return undefined;
  }
}

let warned = false;

/** Whether a probe with this key succeeded in an earlier process: `true` under the key, nothing less. */
export function cachedProbe(key: string): boolean {
  const file = cacheFile(false);
  if (file === undefined) return false;
  try {
    const entries: unknown = JSON.parse(readFileSync(file, "utf8"));
    return (
      typeof entries === "object" &&
      entries !== null &&
      Object.hasOwn(entries, key) &&
      (entries as Record<string, unknown>)[key] === true
    );
  } catch {
    return false; // missing or malformed: a miss (rememberProbe says what was wrong when it rewrites the file)
  }
}

/** Records a success; the file is read through its schema first, and a malformed one is said once and replaced. */
export function rememberProbe(key: string): void {
  const file = cacheFile(true);
  if (file === undefined) return;
  remember(file, key).catch(() => undefined);
}

async function remember(file: string, key: string): Promise<void> {
  const z = await import("zod/mini");
  let entries: Record<string, boolean> = {};
  let problem: string | undefined;
  try {
    const parsed = parseStateText<Record<string, boolean>>(
      await readFile(file, "utf8"),
      z.record(z.string(), z.boolean()),
    );
    if ("problem" in parsed) problem = `is ${parsed.problem}`;
    else entries = parsed.value;
  } catch (error) {
    if (!isMissing(error)) problem = `cannot be read (${errorCode(error) ?? String(error)})`;
  }
  if (problem !== undefined && !warned) {
    warned = true;
    process.emitWarning(`bubblewrap probe cache ${file} ${problem}; rewriting it`, "SkillportWarning");
  }
  // A handful of bwrap binaries at most; drop the oldest beyond that.
  const kept = Object.entries({ ...entries, [key]: true }).slice(-8);
  await writeFileAtomic(file, JSON.stringify(Object.fromEntries(kept)));
}

function cacheFile(create: boolean): string | undefined {
  const dir = stateDir(create);
  return dir === undefined ? undefined : path.join(dir, "bwrap-probe.json");
}
