/**
 * Host writes into a work dir wait for the sandboxed commands running in it, and commands wait for a write in progress
 * (decision 0230): many commands may run at once, a write runs alone. While a host write runs, no sandboxed code of
 * that work dir exists to swap a folder under it. First come, first served, so a stream of commands never starves a
 * write. One lock per work dir real path in this process, so two boxes on one work dir share it.
 */
export class RunLock {
  #running = 0;
  #writing = false;
  readonly #queue: Array<{ write: boolean; go: () => void }> = [];

  /** Runs `fn` as a sandboxed command of this work dir: alongside other commands, never during a host write. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.#hold(false, fn);
  }

  /** Runs `fn` as a host write into this work dir: alone. */
  write<T>(fn: () => Promise<T>): Promise<T> {
    return this.#hold(true, fn);
  }

  async #hold<T>(write: boolean, fn: () => Promise<T>): Promise<T> {
    if (this.#queue.length > 0 || !this.#free(write)) await new Promise<void>((go) => this.#queue.push({ write, go }));
    else this.#take(write); // a waiter is taken for by #pump before it is let go
    try {
      return await fn();
    } finally {
      if (write) this.#writing = false;
      else this.#running--;
      this.#pump();
    }
  }

  #free(write: boolean): boolean {
    return !this.#writing && (!write || this.#running === 0);
  }

  #take(write: boolean): void {
    if (write) this.#writing = true;
    else this.#running++;
  }

  /** Lets the waiters at the head of the queue go while they can; taken here so none is overtaken meanwhile. */
  #pump(): void {
    while (this.#queue.length > 0 && this.#free((this.#queue[0] as { write: boolean }).write)) {
      const next = this.#queue.shift() as { write: boolean; go: () => void };
      this.#take(next.write);
      next.go();
    }
  }
}

const locks = new Map<string, RunLock>();

/** The lock of a work dir (by real path). */
export function lockFor(workDirReal: string): RunLock {
  let lock = locks.get(workDirReal);
  if (!lock) locks.set(workDirReal, (lock = new RunLock()));
  return lock;
}
