// Removing a run's cgroups: empty groups go at once, in this process; only a busy one is handed to the detached
// helper that retries (a one-shot CLI used to spawn that helper at every exit, and the next start another).
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { createRunCgroup, removeGroups } from "./cgroups.js";

const limits = { maxProcesses: 16, maxMemoryBytes: 64 * 1024 * 1024 };
const probe = createRunCgroup(limits);
await probe?.dispose();
const available = probe !== undefined;

describe.runIf(available)("removeGroups (real cgroups on this host)", () => {
  it("removes empty groups (pids and memory) now, without the helper", async () => {
    const group = createRunCgroup(limits)!;
    const dirs = group.procsFiles.map((file) => path.dirname(file));
    expect(dirs.every((dir) => existsSync(dir))).toBe(true);
    const retryLater = vi.fn();
    removeGroups(dirs, retryLater);
    expect(dirs.filter((dir) => existsSync(dir))).toEqual([]);
    expect(retryLater).not.toHaveBeenCalled();
  });

  it("hands a group that still has a member to the helper, and leaves it in place", async () => {
    const group = createRunCgroup(limits)!;
    const dirs = group.procsFiles.map((file) => path.dirname(file));
    const member = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      for (const file of group.procsFiles) writeFileSync(file, `${member.pid}\n`);
      const retryLater = vi.fn();
      removeGroups(dirs, retryLater);
      expect(retryLater).toHaveBeenCalledWith(dirs);
      expect(dirs.every((dir) => existsSync(dir))).toBe(true);
    } finally {
      const exited = new Promise((resolve) => member.once("exit", resolve));
      member.kill("SIGKILL");
      await exited;
      await vi.waitFor(() => {
        removeGroups(dirs, () => {
          throw new Error("still busy");
        });
      });
    }
    expect(dirs.filter((dir) => existsSync(dir))).toEqual([]);
  });

  it("a group already gone is not an error and needs no helper", () => {
    const retryLater = vi.fn();
    removeGroups(["/sys/fs/cgroup/pids/skillport-never-created"], retryLater);
    expect(retryLater).not.toHaveBeenCalled();
  });
});
