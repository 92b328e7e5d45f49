import { describe, expect, it } from "vitest";
import { RunLock } from "./run-lock.js";

/** A promise the test settles by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("RunLock: host writes never overlap the work dir's commands", () => {
  it("commands run together; a write waits for all of them; commands after it wait for it (first come, first served)", async () => {
    const lock = new RunLock();
    const log: string[] = [];
    const one = gate();
    const two = gate();
    const write = gate();
    const running = [
      lock.run(async () => (log.push("run 1"), await one.promise, log.push("run 1 done"))),
      lock.run(async () => (log.push("run 2"), await two.promise, log.push("run 2 done"))),
      lock.write(async () => (log.push("write"), await write.promise, log.push("write done"))),
      lock.run(async () => log.push("run 3")),
    ];
    await settle();
    expect(log).toEqual(["run 1", "run 2"]);
    one.open();
    await settle();
    expect(log).toEqual(["run 1", "run 2", "run 1 done"]);
    two.open();
    await settle();
    expect(log).toEqual(["run 1", "run 2", "run 1 done", "run 2 done", "write"]);
    write.open();
    await Promise.all(running);
    expect(log).toEqual(["run 1", "run 2", "run 1 done", "run 2 done", "write", "write done", "run 3"]);
  });

  it("writes run one at a time, and a failing holder releases the lock", async () => {
    const lock = new RunLock();
    const log: string[] = [];
    const first = lock.write(async () => {
      log.push("write 1");
      throw new Error("boom");
    });
    const second = lock.write(async () => log.push("write 2"));
    const third = lock.run(async () => log.push("run"));
    await expect(first).rejects.toThrow("boom");
    await Promise.all([second, third]);
    expect(log).toEqual(["write 1", "write 2", "run"]);
  });
});
