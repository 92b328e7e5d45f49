// Issue 19: a `process` backend run had uid 65534, like every bubblewrap sandbox and plugin worker, in the host's PID
// namespace: it read another workspace's environment and memory through /proc/<pid>/environ and /proc/<pid>/mem. On a
// root host code that runs without bubblewrap now gets a uid of its own, drawn per writable directory. Before the fix
// the process-backend run below printed the bubblewrap sandbox's secret and opened its memory.
import { describe, expect, it } from "vitest";
import { createSandbox } from "./sandbox.js";
import { sandboxedCommand } from "./command.js";
import { DEFAULT_RUN_AS, DEFAULT_UNISOLATED_IDS, unisolatedIdentity } from "./identity.js";
import { haveBubblewrap, useWorkspaces } from "./__fixtures__/helpers.js";

const hasBwrap = haveBubblewrap(console.warn);
const hostIsRoot = process.getuid?.() === 0;
if (!hostIsRoot)
  console.warn("host is not root: unisolated runs keep the host's uid; the cross-sandbox checks are skipped");

const workspace = useWorkspaces();

describe("the identity of unisolated code", () => {
  it("is drawn from the range by the writable directory: stable for one, different for others, never the bubblewrap uid", () => {
    const a = unisolatedIdentity("/srv/a");
    expect(unisolatedIdentity("/srv/a")).toEqual(a);
    expect(a.uid).toBe(a.gid);
    const ids = new Set(Array.from({ length: 200 }, (_, i) => unisolatedIdentity(`/srv/ws-${i}`).uid));
    expect(ids.size).toBeGreaterThan(195);
    for (const id of ids) {
      expect(id).toBeGreaterThanOrEqual(DEFAULT_UNISOLATED_IDS.first);
      expect(id).toBeLessThan(DEFAULT_UNISOLATED_IDS.first + DEFAULT_UNISOLATED_IDS.count);
      expect(id).not.toBe(DEFAULT_RUN_AS.uid);
    }
    expect(unisolatedIdentity("/srv/a", { first: 5000, count: 1 })).toEqual({ uid: 5000, gid: 5000 });
  });

  it.each([
    { first: 0, count: 10 },
    { first: 1, count: 0 },
    { first: 0xffff_fff0, count: 100 },
    { first: 1.5, count: 10 },
  ])("refuses the range %o", (range) => {
    expect(() => unisolatedIdentity("/srv/a", range)).toThrow(/must lie within 1 … 4294967294/);
  });
});

describe.runIf(hostIsRoot)("process backend on a root host", () => {
  it("runs as its workspace's own uid, not the bubblewrap one; runAs still wins", async () => {
    const a = createSandbox({ kind: "process", writableDir: await workspace("id-a") });
    const b = createSandbox({ kind: "process", writableDir: await workspace("id-b") });
    const r = await a.run({ command: ["sh", "-c", "id -u; id -g"] });
    expect(r.stdout).toBe(`${a.identity.uid}\n${a.identity.gid}\n`);
    expect(a.identity).toEqual(unisolatedIdentity(a.writableDir));
    expect(a.identity.uid).not.toBe(DEFAULT_RUN_AS.uid);
    expect(b.identity.uid).not.toBe(a.identity.uid);
    expect(
      createSandbox({ kind: "process", writableDir: a.writableDir, runAs: { uid: 4242, gid: 4242 } }).identity,
    ).toEqual({ uid: 4242, gid: 4242 });
    const cmd = await sandboxedCommand({
      command: ["/bin/true"],
      bwrapPath: undefined,
      writableDir: a.writableDir,
      cwd: a.writableDir,
      env: {},
    });
    await cmd.dispose();
    expect(cmd.identity).toEqual(a.identity);
  });

  it.runIf(hasBwrap)("cannot read a bubblewrap sandbox's environment or memory through /proc", async () => {
    const secret = `proc-secret-${process.pid}`;
    const marker = `sleep 93.${process.pid}`;
    // Built at run time, so the attacker's own command line does not carry the marker.
    const pattern = `"sleep 93."'${process.pid}'`;
    const victim = createSandbox({ kind: "bubblewrap", writableDir: await workspace("victim") });
    const stop = new AbortController();
    const running = victim.run({
      command: ["bash", "-c", `${marker} & wait`],
      env: { TOKEN: secret },
      timeoutMs: 30_000,
      signal: stop.signal,
    });
    const attacker = createSandbox({ kind: "process", writableDir: await workspace("attacker") });
    try {
      // Finds the victim's processes by their command line (readable by anyone) and tries both doors.
      const r = await attacker.run({
        command: [
          "bash",
          "-c",
          `for i in $(seq 100); do pids=$(grep -lF ${pattern} /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3); [ -n "$pids" ] && break; sleep 0.05; done
echo "found $(echo $pids | wc -w)"
for p in $pids; do tr '\\0' '\\n' < /proc/$p/environ 2>/dev/null | grep TOKEN; (exec 5</proc/$p/mem) 2>/dev/null && echo "mem $p"; done; true`,
        ],
      });
      expect(r.stdout).toMatch(/^found [1-9]/);
      expect(r.stdout).not.toContain(secret);
      expect(r.stdout).not.toContain("mem ");
    } finally {
      stop.abort();
      await running;
      await victim.close();
    }
  });
});
