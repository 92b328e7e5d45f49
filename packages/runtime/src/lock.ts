import { mkdir, readFile, rename, rm, writeFile, stat } from "node:fs/promises";
import path from "node:path";
import { SkillUnavailableError } from "@skillport/core";
import { errorCode } from "@skillport/fs";

export interface LockOptions {
  /** Give up after this long. Default 60 s. */
  waitMs?: number;
  /** A lock older than this whose owner cannot be checked is considered stale. Default 10 min. */
  staleMs?: number;
  /** Time between attempts. Default 50 ms. */
  pollMs?: number;
}

/**
 * A cross-process lock: a directory created with mkdir (atomic on every filesystem), holding `owner.json`
 * with the holder's pid. A lock whose pid is dead (or that is older than `staleMs`) is broken.
 */
export async function acquireLock(lockDir: string, options: LockOptions = {}): Promise<() => Promise<void>> {
  const waitMs = options.waitMs ?? 60_000;
  const staleMs = options.staleMs ?? 10 * 60_000;
  const pollMs = options.pollMs ?? 50;
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await mkdir(lockDir);
      await writeFile(path.join(lockDir, "owner.json"), JSON.stringify({ pid: process.pid, since: Date.now() }));
      return async () => {
        await rm(lockDir, { recursive: true, force: true });
      };
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
    if (await isStale(lockDir, staleMs)) {
      // Break it by renaming first so two waiters cannot both delete a fresh lock taken in between.
      const grave = `${lockDir}.stale-${process.pid}-${Date.now()}`;
      try {
        await rename(lockDir, grave);
        await rm(grave, { recursive: true, force: true });
      } catch {
        // Someone else broke or released it.
      }
      continue;
    }
    if (Date.now() >= deadline) {
      throw new SkillUnavailableError(
        `workspace is busy: another deploy holds the lock (waited ${Math.round(waitMs / 1000)} s)`,
      );
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** The holder writes owner.json right after mkdir; a lock without one for this long lost its holder. */
const OWNERLESS_STALE_MS = 5_000;

async function isStale(lockDir: string, staleMs: number): Promise<boolean> {
  let owner: { pid?: unknown; since?: unknown } | undefined;
  try {
    owner = JSON.parse(await readFile(path.join(lockDir, "owner.json"), "utf8")) as { pid?: unknown };
  } catch {
    // Owner file not written yet (the holder is between mkdir and write) or unreadable: judge by age.
    try {
      const info = await stat(lockDir);
      return Date.now() - info.mtimeMs > OWNERLESS_STALE_MS;
    } catch {
      return false;
    }
  }
  if (typeof owner?.pid === "number") {
    if (owner.pid === process.pid) return false;
    try {
      process.kill(owner.pid, 0);
    } catch (error) {
      return errorCode(error) === "ESRCH";
    }
  }
  return typeof owner?.since === "number" && Date.now() - owner.since > staleMs;
}
