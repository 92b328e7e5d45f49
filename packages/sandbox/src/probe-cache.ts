import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "@skillport/fs";
import { stateDir } from "./state-dir.js";

/**
 * Successful bubblewrap probes remembered across processes, so a one-shot CLI command does not pay for a whole extra
 * sandbox start. Host-only state: a file in this user's own state directory (state-dir.ts); without one the cache is
 * simply not used. Only successes are stored: a forged entry could make a run fail
 * loudly, never make `auto` fall back to the non-isolating backend; bwrap's features are always read from the binary. The key names everything a success depends on:
 * the bwrap binary (device, inode, size, mtime), the kernel boot, the uid, setpriv and the policy revision.
 */
const POLICY_REVISION = 2; // 2: the seccomp filter

export function probeKey(bwrapPath: string, setpriv: string | undefined): string | undefined {
  try {
    const bin = statSync(bwrapPath);
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    return JSON.stringify([POLICY_REVISION, bwrapPath, bin.dev, bin.ino, bin.size, bin.mtimeMs, boot, process.getuid?.(), setpriv ?? null]);
  } catch {
    return undefined;
  }
}

export function cachedProbe<T>(key: string): T | undefined {
  const file = cacheFile(false);
  if (file === undefined) return undefined;
  try {
    const entries = JSON.parse(readFileSync(file, "utf8")) as Record<string, T>;
    return Object.hasOwn(entries, key) ? entries[key] : undefined;
  } catch {
    return undefined;
  }
}

export function rememberProbe<T>(key: string, value: T): void {
  const file = cacheFile(true);
  if (file === undefined) return;
  let entries: Record<string, unknown> = {};
  try {
    entries = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    // Missing or unreadable: start over.
  }
  // A handful of bwrap binaries at most; drop the oldest beyond that.
  const kept = Object.entries({ ...entries, [key]: value }).slice(-8);
  writeFileAtomic(file, JSON.stringify(Object.fromEntries(kept))).catch(() => undefined);
}

function cacheFile(create: boolean): string | undefined {
  const dir = stateDir(create);
  return dir === undefined ? undefined : path.join(dir, "bwrap-probe.json");
}
