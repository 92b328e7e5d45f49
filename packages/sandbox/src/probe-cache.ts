import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import * as z from "zod/mini";
import { errorCode, isMissing, parseStateText, writeFileAtomic } from "@skillport/fs/floor";
import { stateDir } from "./state-dir.js";

/**
 * Successful bubblewrap probes remembered across processes, so a one-shot CLI command does not pay for a whole extra
 * sandbox start. Host-only state: a file in this user's own state directory (state-dir.ts); without one the cache is
 * simply not used. Only successes are stored: a forged entry could make a run fail
 * loudly, never make `auto` fall back to the non-isolating backend; bwrap's features are always read from the binary. The key names everything a success depends on:
 * the bwrap binary (device, inode, size, mtime), the kernel boot, the uid, setpriv and the policy revision.
 * The file is read through a schema (decision 0321): a malformed one is said once (a process warning) and rewritten
 * by the next successful probe; a probe is all it costs.
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

/** The file: probe key → true (only successes are stored). Static: probing is synchronous (zod v4 mini, small). */
const PROBE_FILE = z.record(z.string(), z.boolean());

let warned = false;

/** The remembered probes; a missing file is none, a malformed one is none and said once per process. */
function readProbes(file: string): Record<string, boolean> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (!isMissing(error)) warnOnce(`bubblewrap probe cache ${file} cannot be read (${errorCode(error) ?? String(error)}); probing again`);
    return {};
  }
  const parsed = parseStateText<Record<string, boolean>>(text, PROBE_FILE);
  if ("problem" in parsed) {
    warnOnce(`bubblewrap probe cache ${file} is ${parsed.problem}; probing again, and rewriting it`);
    return {};
  }
  return parsed.value;
}

function warnOnce(message: string): void {
  if (warned) return;
  warned = true;
  process.emitWarning(message, "SkillportWarning");
}

/** Whether a probe with this key succeeded in an earlier process. */
export function cachedProbe(key: string): boolean {
  const file = cacheFile(false);
  if (file === undefined) return false;
  const entries = readProbes(file);
  return Object.hasOwn(entries, key) && entries[key] === true;
}

export function rememberProbe(key: string): void {
  const file = cacheFile(true);
  if (file === undefined) return;
  // A handful of bwrap binaries at most; drop the oldest beyond that. A malformed file starts over.
  const kept = Object.entries({ ...readProbes(file), [key]: true }).slice(-8);
  writeFileAtomic(file, JSON.stringify(Object.fromEntries(kept))).catch(() => undefined);
}

function cacheFile(create: boolean): string | undefined {
  const dir = stateDir(create);
  return dir === undefined ? undefined : path.join(dir, "bwrap-probe.json");
}
