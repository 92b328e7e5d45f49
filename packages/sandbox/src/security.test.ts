// Attacks on the sandbox itself (issue 8, hole 1 and the limits). Each one succeeded before the fix. Host-global
// settings are only ever READ here (`[ -w … ]`), never written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmod, chown, mkdir, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { createSandbox, type Sandbox, type SandboxOptions } from "./sandbox.js";
import { findBubblewrap } from "./bubblewrap.js";
import { tempDir, haveBubblewrap, bundleSandbox } from "./__fixtures__/helpers.js";

const hasBwrap = haveBubblewrap(console.warn);
const hostIsRoot = process.getuid?.() === 0;
if (!hostIsRoot)
  console.warn("host is not root: the root-only checks (host uid of sandboxed processes, runAs) are skipped");

let ws: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  ws = await tempDir();
});
afterAll(async () => {
  await ws.cleanup();
});

const bash = (script: string) => ["/bin/bash", "-c", script];
const kinds: Array<"process" | "bubblewrap"> = hasBwrap ? ["process", "bubblewrap"] : ["process"];
const make = (kind: "process" | "bubblewrap", options: Partial<SandboxOptions> = {}): Sandbox =>
  createSandbox({ kind, writableDir: ws.dir, ...options });

describe.each(kinds)("%s backend: sandboxed code never holds host root", (kind) => {
  it("runs as a non-root uid/gid with no capabilities at all and no-new-privs", async () => {
    const r = await make(kind).run({
      command: bash(
        "id -u; id -g; id -G; grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status",
      ),
    });
    expect(r.exitCode).toBe(0);
    const [uid, gid, groups, ...status] = r.stdout.trim().split("\n");
    expect(Number(uid)).not.toBe(0);
    expect(Number(gid)).not.toBe(0);
    expect(groups!.split(" ")).not.toContain("0");
    expect(status).toEqual([
      "CapInh:\t0000000000000000",
      "CapPrm:\t0000000000000000",
      "CapEff:\t0000000000000000",
      "CapBnd:\t0000000000000000",
      "CapAmb:\t0000000000000000",
      "NoNewPrivs:\t1",
    ]);
    expect(r.identity).toEqual({ uid: Number(uid), gid: Number(gid) });
  });

  it("cannot write kernel interfaces: core_pattern, sysrq-trigger, any sysctl", async () => {
    // The classic escape: a writable core_pattern runs a program as host root on the next crash. Only `-w` is asked.
    const r = await make(kind).run({
      command: bash(
        'for f in /proc/sys/kernel/core_pattern /proc/sys/kernel/modprobe /proc/sys/vm/drop_caches /proc/sysrq-trigger; do [ -e $f ] || continue; [ -w $f ] && echo "writable $f"; done; echo checked',
      ),
    });
    expect(r.stdout).toBe("checked\n");
  });

  it.runIf(hostIsRoot)("shows up on the host under the sandbox uid, not root", async () => {
    const marker = `sleep 877.${kind === "process" ? 1 : 2}${process.pid}`;
    const sandbox = make(kind);
    const stop = new AbortController();
    const running = sandbox.run({ command: bash(`${marker} & wait`), timeoutMs: 30_000, signal: stop.signal });
    let uids: number[] = [];
    for (let i = 0; i < 200 && uids.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const ps = spawnSync("ps", ["-eo", "uid=,args="], { encoding: "utf8" }).stdout;
      uids = ps
        .split("\n")
        .filter((line) => line.includes(marker) && !line.includes("bash -c"))
        .map((line) => Number(line.trim().split(/\s+/)[0]));
    }
    stop.abort(); // kills the run's process group
    await running;
    expect(uids.length).toBeGreaterThan(0);
    for (const uid of uids) expect(uid).toBe(sandbox.identity.uid);
    expect(sandbox.identity.uid).not.toBe(0);
  });

  it.runIf(hostIsRoot)(
    "cannot rename or delete what the host put in the writable directory, but owns what it creates",
    async () => {
      await mkdir(path.join(ws.dir, "host-dir"), { recursive: true });
      await writeFile(path.join(ws.dir, "host-file"), "host");
      const r = await make(kind).run({
        command: bash(
          "rm -f host-file; mv host-dir moved; rm -rf host-dir; echo mine > own.txt && cat own.txt && rm own.txt && echo removed",
        ),
      });
      expect(r.stdout).toBe("mine\nremoved\n");
      expect(r.stderr).toMatch(/Operation not permitted|Permission denied/);
      expect((await readdir(ws.dir)).filter((n) => n.startsWith("host-")).sort()).toEqual(["host-dir", "host-file"]);
    },
  );

  it.runIf(hostIsRoot)("runs as the dedicated uid/gid the host picks; never as 0", async () => {
    const r = await make(kind, { runAs: { uid: 4242, gid: 4343 } }).run({ command: bash("id -u; id -g") });
    expect(r.stdout).toBe("4242\n4343\n");
    expect(() => make(kind, { runAs: { uid: 0, gid: 4343 } })).toThrow(/never runs as host root/);
    expect(() => make(kind, { runAs: { uid: 4242, gid: 0 } })).toThrow(/never runs as host root/);
  });

  it("bounds memory: a 3 GiB allocation fails cleanly", async () => {
    const sandbox = make(kind, { maxMemoryBytes: 128 * 1024 * 1024 });
    // perl builds a 3 GiB string (every page touched), so neither overcommit nor a lazy allocator hides it.
    const r = await sandbox.run({
      command: ["/usr/bin/perl", "-e", '$x = "a" x (3 * 1024 ** 3); print "allocated ", length($x), "\\n"'],
      timeoutMs: 60_000,
    });
    expect(r.stdout).toBe("");
    expect(r.timedOut).toBe(false);
    expect(r.exitCode === 0).toBe(false);
    expect(["cgroup", "rlimit"]).toContain(r.memoryLimit);
    if (r.memoryLimit === "cgroup") expect(r.memoryLimitExceeded).toBe(true);
    else expect(r.stderr).toMatch(/Out of memory/);
    // The sandbox is still usable afterwards.
    expect((await sandbox.run({ command: ["true"] })).exitCode).toBe(0);
  });
});

describe.runIf(hasBwrap)("bubblewrap: kernel interfaces and /tmp", () => {
  it("mounts /proc/sys and the other kernel interfaces read-only", async () => {
    const r = await make("bubblewrap").run({
      command: bash("grep -E ' /proc/(sys|irq|bus|fs|sysrq-trigger) ' /proc/self/mountinfo | cut -d' ' -f5,6"),
    });
    const lines = r.stdout.trim().split("\n");
    expect(lines).toContain(lines.find((l) => l.startsWith("/proc/sys ")));
    for (const line of lines) expect(line).toMatch(/^\/proc\/\S+ ro,/);
  });

  it("bounds /tmp: a 2 GiB write stops at the size limit", async () => {
    const r = await make("bubblewrap", { tmpSizeBytes: 16 * 1024 * 1024 }).run({
      command: bash("head -c 2147483648 /dev/zero > /tmp/big; echo rc=$?; stat -c %s /tmp/big"),
      timeoutMs: 60_000,
    });
    const [rc, size] = r.stdout.trim().split("\n");
    expect(rc).toBe("rc=1");
    expect(Number(size)).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(r.stderr).toMatch(/No space left on device/);
  });

  it("/tmp is writable by the sandbox user and private to the run", async () => {
    const r = await make("bubblewrap").run({ command: bash("echo hi > /tmp/x && cat /tmp/x && stat -c %a /tmp") });
    expect(r.stdout).toBe("hi\n1777\n");
  });
});

describe("findBubblewrap probes, not just looks", () => {
  it("rejects a bwrap that exists but cannot start a sandbox", async () => {
    const dir = await tempDir();
    try {
      const fake = path.join(dir.dir, "bwrap");
      await writeFile(fake, "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
      await chmod(fake, 0o755);
      expect((await stat(fake)).mode & 0o111).not.toBe(0);
      expect(findBubblewrap(fake)).toBeUndefined();
      expect(() => createSandbox({ kind: "bubblewrap", writableDir: ws.dir, bwrapPath: fake })).toThrow(
        /cannot create its namespaces/,
      );
      expect(createSandbox({ writableDir: ws.dir, bwrapPath: fake }).kind).toBe("process");
    } finally {
      await dir.cleanup();
    }
  });
});

// The same attacks from an unprivileged host user: bwrap's own user namespace, and the rlimit fallbacks (no cgroup is
// writable for that user). Run by dropping this (root) test process's child to 65534 with setpriv.
describe.runIf(hasBwrap && hostIsRoot)("as an unprivileged host user", () => {
  it("still holds nothing: no caps, kernel interfaces read-only, no nested user namespaces; rlimits bound memory and processes", async () => {
    const dir = await tempDir();
    try {
      await chmod(dir.dir, 0o755);
      const bundle = await bundleSandbox(dir.dir);
      const work = path.join(dir.dir, "work");
      const tmp = path.join(dir.dir, "tmp");
      for (const d of [work, tmp]) {
        await mkdir(d);
        await chown(d, 65534, 65534);
      }
      const script = path.join(dir.dir, "attack.mjs");
      await writeFile(
        script,
        `import { createSandbox } from ${JSON.stringify(bundle)};
const sb = createSandbox({ kind: "bubblewrap", writableDir: ${JSON.stringify(work)}, maxMemoryBytes: 128 * 1024 * 1024, maxProcesses: 1024 });
const who = await sb.run({ command: ["/bin/bash", "-c", "id -u; grep -E '^Cap(Eff|Bnd):' /proc/self/status; [ -w /proc/sys/kernel/core_pattern ] && echo core_pattern-writable; unshare -U true 2>/dev/null && echo nested-userns; true"] });
const mem = await sb.run({ command: ["/usr/bin/perl", "-e", '$x = "a" x (3 * 1024 ** 3); print "allocated\\n"'], timeoutMs: 60000 });
const limits = await sb.run({ command: ["/bin/bash", "-c", "ulimit -u; ulimit -v"] });
console.log(JSON.stringify({ who: who.stdout, mem: { stdout: mem.stdout, limit: mem.memoryLimit, exit: mem.exitCode }, limits: { stdout: limits.stdout, pids: limits.pidLimit } }));
await sb.close();
`,
      );
      const r = spawnSync(
        "setpriv",
        ["--reuid=65534", "--regid=65534", "--clear-groups", "--", process.execPath, script],
        {
          encoding: "utf8",
          env: { PATH: process.env.PATH, TMPDIR: tmp },
          timeout: 120_000,
        },
      );
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout.trim().split("\n").pop()!) as {
        who: string;
        mem: { stdout: string; limit: string; exit: number | null };
        limits: { stdout: string; pids: string };
      };
      expect(out.who).toBe("65534\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n");
      expect(out.mem).toMatchObject({ stdout: "", limit: "rlimit" });
      expect(out.mem.exit).not.toBe(0);
      // RLIMIT_NPROC counts every process of the uid on the host, so a fork bomb's exact breaking point depends on what
      // else runs as 65534; the limit itself is what this checks (the cgroup case has the fork-bomb test).
      expect(out.limits).toEqual({ stdout: "1024\n131072\n", pids: "rlimit" });
    } finally {
      await dir.cleanup();
    }
  });
});
