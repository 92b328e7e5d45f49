import path from "node:path";
import type { FSWatcher } from "chokidar";
import { isInside } from "../floor/confine.js";

export interface WatchOptions {
  /** Quiet time before a batch of changes is reported. Default 100 ms. */
  debounceMs?: number;
  /** A batch is reported at the latest this long after its first change, even if changes keep coming. Default 1 s. */
  maxWaitMs?: number;
  /** Directory levels watched below each skill directory. Default 16. */
  depth?: number;
  /** Watcher errors and errors thrown by the change callback. Ignored when not given. */
  onError?: (error: unknown) => void;
  /** Called once the initial scan is done and changes from then on are seen. */
  onReady?: () => void;
  /**
   * Keep the process alive while watching. Default false: a script that registers skills and ends exits even when
   * it never stops the watcher (changes are still reported while something else keeps it running).
   */
  persistent?: boolean;
}

export const DEFAULT_WATCH_DEBOUNCE_MS = 100;

/**
 * Watches a skills root and reports, debounced, the sorted ids of skills whose files changed. Dot-entries at the top
 * (including a repository's temp directories) are ignored; links are not followed. Returns a function that stops it.
 */
export function watchSkillRoot(
  rootReal: string,
  onIds: (ids: string[]) => void,
  options: WatchOptions = {},
): () => void {
  const debounceMs = options.debounceMs ?? DEFAULT_WATCH_DEBOUNCE_MS;
  const maxWaitMs = options.maxWaitMs ?? Math.max(1000, debounceMs);
  const persistent = options.persistent ?? false;
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let firstChangeAt = 0;
  let closed = false;

  const report = (error: unknown) => options.onError?.(error);
  const flush = () => {
    timer = undefined;
    if (closed || pending.size === 0) return;
    const ids = [...pending].sort();
    pending.clear();
    try {
      onIds(ids);
    } catch (error) {
      report(error); // a throwing listener must not take the process down from inside a timer
    }
  };
  const schedule = () => {
    const now = Date.now();
    if (timer === undefined) firstChangeAt = now;
    else clearTimeout(timer);
    timer = setTimeout(flush, Math.max(0, Math.min(debounceMs, firstChangeAt + maxWaitMs - now)));
    if (!persistent) timer.unref();
  };

  const topSegment = (abs: string): { name: string; nested: boolean } | undefined => {
    const rel = path.relative(rootReal, abs);
    if (rel === "" || !isInside(rootReal, abs)) return undefined;
    const [name = "", ...rest] = rel.split(path.sep);
    return { name, nested: rest.length > 0 };
  };

  const start = (watcher: FSWatcher) => {
    watcher.on("all", (event, abs) => {
      const top = topSegment(abs);
      if (top === undefined || top.name.startsWith(".")) return;
      // A loose file at the top is not a skill; a top-level directory appearing or vanishing is.
      if (!top.nested && event !== "addDir" && event !== "unlinkDir") return;
      pending.add(top.name);
      schedule();
    });
    watcher.on("error", report);
    watcher.on("ready", () => options.onReady?.());
  };

  // chokidar is loaded on first use, so importing @skillport/fs stays cheap for the many callers that never watch.
  let watcher: FSWatcher | undefined;
  import("chokidar")
    .then(({ watch }) => {
      if (closed) return;
      watcher = watch(rootReal, {
        persistent,
        ignoreInitial: true,
        followSymlinks: false,
        depth: (options.depth ?? 16) + 1,
        ignored: (abs: string) => topSegment(abs)?.name.startsWith(".") ?? false,
      });
      start(watcher);
    })
    .catch(report);

  return () => {
    if (closed) return;
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    watcher?.close().catch(report);
  };
}
