// Launchers prepared ahead of time (decision 0134): by default the next run's launcher starts during a run; with
// `prewarm: "first"` (a one-shot caller such as `skillport exec`) only the first one is. Its own file, so no other
// test's sandbox (or its pending prewarm timer) shares this process.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createSandbox } from "./sandbox.js";
import { haveBubblewrap, tempDir } from "./__fixtures__/helpers.js";

const hasBwrap = haveBubblewrap(console.warn);

/** Launchers of this process waiting for an argv (see startWaiting in run-process.ts). */
const waitingLaunchers = (): number =>
  spawnSync("ps", ["-o", "args=", "--ppid", String(process.pid)], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((line) => line.includes("mapfile -d")).length;

/** The count once it has held still for 300 ms: a launcher starting or a killed one exiting settles first. */
async function settledLaunchers(): Promise<number> {
  let last = waitingLaunchers();
  for (let stable = 0, i = 0; stable < 6 && i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = waitingLaunchers();
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
  return last;
}

describe.runIf(hasBwrap)("bubblewrap launchers prepared ahead of time", () => {
  it.each([
    { prewarm: true, prepared: 1, says: "the next run's launcher is waiting" },
    { prewarm: "first" as const, prepared: 0, says: "no launcher is waiting (a one-shot caller)" },
  ])("prewarm $prewarm: after a run longer than the prewarm delay, $says", async ({ prewarm, prepared }) => {
    const ws = await tempDir();
    const before = await settledLaunchers();
    const sb = createSandbox({ kind: "bubblewrap", writableDir: ws.dir, prewarm });
    try {
      const r = await sb.run({ command: ["/bin/bash", "-c", "sleep 0.3"] });
      expect(r.exitCode).toBe(0);
      expect((await settledLaunchers()) - before).toBe(prepared);
    } finally {
      await sb.close();
      await ws.cleanup();
    }
  });
});
