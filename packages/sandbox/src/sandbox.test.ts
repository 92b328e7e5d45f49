import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { readdirSync } from "node:fs";
import { readFile, writeFile, mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createSandbox, BubblewrapSandbox, ProcessSandbox, PROCESS_SANDBOX_WARNING, type Sandbox } from "./sandbox.js";
import { SandboxUnavailableError } from "./errors.js";
import { tempDir, haveBubblewrap, bundleSandbox } from "./__fixtures__/helpers.js";

const hasBwrap = haveBubblewrap(console.warn);
let ws: { dir: string; cleanup: () => Promise<void> };
let outside: { dir: string; cleanup: () => Promise<void> };
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  ws = await tempDir();
  outside = await tempDir();
  server = createServer((socket) => {
    connections++;
    socket.end("hello from host\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  port = typeof address === "object" && address ? address.port : 0;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await ws.cleanup();
  await outside.cleanup();
});

const bash = (script: string) => ["/bin/bash", "-c", script];

function processAlive(marker: string): boolean {
  const out = spawnSync("ps", ["-eo", "args"], { encoding: "utf8" }).stdout;
  return out.split("\n").some((line) => line.includes(marker) && !line.includes("ps -eo"));
}

/**
 * Whether the marked process is gone within a few seconds. The kill is sent before a run resolves, but the kernel
 * finishes it (and a PID namespace's teardown) asynchronously: on a loaded machine `ps` may still list the process for
 * a moment. Without the kill it would live for minutes, so this still fails on code that leaks it.
 */
async function goneSoon(marker: string): Promise<boolean> {
  for (let i = 0; i < 200 && processAlive(marker); i++) await new Promise((r) => setTimeout(r, 25));
  return !processAlive(marker);
}

/** Whether the marked process shows up within a few seconds (bash prints before it forks the next command). */
async function aliveSoon(marker: string): Promise<boolean> {
  for (let i = 0; i < 200 && !processAlive(marker); i++) await new Promise((r) => setTimeout(r, 25));
  return processAlive(marker);
}

describe("sandbox selection", () => {
  it("creates bubblewrap by default when installed and refuses a missing bwrap", () => {
    if (hasBwrap) expect(createSandbox({ writableDir: ws.dir }).kind).toBe("bubblewrap");
    expect(() => createSandbox({ kind: "bubblewrap", writableDir: ws.dir, bwrapPath: "/nonexistent/bwrap" })).toThrow(
      SandboxUnavailableError,
    );
    const p = createSandbox({ kind: "process", writableDir: ws.dir });
    expect(p).toBeInstanceOf(ProcessSandbox);
    expect(p.isolates).toBe(false);
  });

  it("'auto' without bwrap falls back to 'process' and says so in every result", async () => {
    const sb = createSandbox({ writableDir: ws.dir, bwrapPath: "/nonexistent/bwrap" });
    expect(sb.kind).toBe("process");
    const r = await sb.run({ command: ["true"] });
    expect(r.warnings).toEqual([
      "bubblewrap is not installed or does not work here; fell back to sandbox 'process'",
      PROCESS_SANDBOX_WARNING,
    ]);
  });

  it("an abort signal kills the run", async () => {
    const controller = new AbortController();
    const running = createSandbox({ kind: "process", writableDir: ws.dir }).run({
      command: bash("echo started; sleep 30"),
      signal: controller.signal,
      onOutput: () => controller.abort(),
    });
    const r = await running;
    expect(r).toMatchObject({ aborted: true, timedOut: false, exitCode: null, signal: "SIGKILL", stdout: "started\n" });
  });

  it("rejects a cwd outside the writable dir and a bad timeout", async () => {
    const sb = createSandbox({ kind: "process", writableDir: ws.dir });
    await expect(sb.run({ command: ["true"], cwd: outside.dir })).rejects.toThrow(/working directory must be inside/);
    await expect(sb.run({ command: ["true"], timeoutMs: 0 })).rejects.toThrow(/timeout/);
    await expect(sb.run({ command: ["true"], timeoutMs: 601_000 })).rejects.toThrow(/timeout/);
    await expect(sb.run({ command: [] })).rejects.toThrow(/empty command/);
  });
});

// Behaviour both backends share: limits, environment, process-group cleanup.
const backends: Array<[string, () => Sandbox]> = [
  ["process", () => createSandbox({ kind: "process", writableDir: ws.dir, maxProcesses: 64 })],
];
if (hasBwrap)
  backends.push(["bubblewrap", () => createSandbox({ kind: "bubblewrap", writableDir: ws.dir, maxProcesses: 64 })]);

describe.each(backends)("%s backend", (kind, make) => {
  it("reports exit code, signal, duration and streams", async () => {
    const r = await make().run({ command: bash("echo out; echo err >&2; exit 3") });
    expect(r).toMatchObject({
      stdout: "out\n",
      stderr: "err\n",
      exitCode: 3,
      signal: null,
      timedOut: false,
      sandbox: kind,
    });
    expect(r.isolates).toBe(kind === "bubblewrap");
    expect(r.warnings.includes(PROCESS_SANDBOX_WARNING)).toBe(kind === "process");
    expect(r.durationMs).toBeGreaterThan(0);
    const killed = await make().run({ command: bash("kill -9 $$") });
    // bubblewrap relays a signal death as 128+N (like a shell); the signal is still named.
    expect(killed).toMatchObject({ exitCode: kind === "process" ? null : 137, signal: "SIGKILL" });
  });

  it("mergeStderr: both streams through one pipe in exact order, the sandbox's own errors included", async () => {
    const r = await make().run({
      command: bash("for i in 1 2 3; do echo out$i; echo err$i >&2; done"),
      mergeStderr: true,
    });
    expect(r).toMatchObject({
      stdout: "out1\nerr1\nout2\nerr2\nout3\nerr3\n",
      stderr: "",
      stderrBytes: 0,
      exitCode: 0,
    });
    // The command cannot be started: the message of whatever execs it (setpriv, bwrap or bash) is merged too.
    const missing = await make().run({ command: ["/nonexistent/tool"], mergeStderr: true });
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stdout).toMatch(/\/nonexistent\/tool/);
    expect(missing.stderr).toBe("");
  });

  it("scrubs the environment to the allow-list plus the caller's variables", async () => {
    process.env.SKILLPORT_TEST_SECRET = "hunter2";
    try {
      const r = await make().run({ command: ["/usr/bin/env"], env: { GIVEN: "yes" } });
      const keys = r.stdout
        .trim()
        .split("\n")
        .map((l) => l.split("=")[0])
        .sort();
      expect(r.stdout).not.toContain("hunter2");
      expect(keys.filter((k) => !["PWD", "SHLVL", "_", "OLDPWD"].includes(k!))).toEqual([
        "GIVEN",
        "HOME",
        "LANG",
        "PATH",
        "TMPDIR",
      ]);
      expect(r.stdout).toContain(`HOME=${ws.dir}\n`);
    } finally {
      delete process.env.SKILLPORT_TEST_SECRET;
    }
  });

  it("timeout kills the whole process group, grandchildren included", async () => {
    const marker = `sleep 873.${kind === "process" ? 1 : 2}${process.pid}`;
    const r = await make().run({ command: bash(`(${marker}; echo never) & ${marker}; echo never`), timeoutMs: 500 });
    expect(r.timedOut).toBe(true);
    expect(r.stdout).toBe("");
    expect(r.exitCode).toBe(null);
    expect(await goneSoon(marker)).toBe(true);
  });

  it("kills background children left behind after a normal exit", async () => {
    const marker = `sleep 874.${kind === "process" ? 1 : 2}${process.pid}`;
    const r = await make().run({ command: bash(`${marker} >/dev/null 2>&1 & echo started`) });
    expect(r).toMatchObject({ stdout: "started\n", exitCode: 0 });
    expect(await goneSoon(marker)).toBe(true);
  });

  it("caps output: keeps the tail, counts the rest, kills at the hard limit", async () => {
    const r = await make().run({
      command: bash("yes | head -c 1G"),
      maxStdoutBytes: 1000,
      maxOutputBytes: 8 * 1024 * 1024,
    });
    expect(r.outputLimitExceeded).toBe(true);
    expect(r.stdoutBytes).toBe(8 * 1024 * 1024);
    expect(r.stdout.length).toBe(1000);
    expect(r.stdout).toMatch(/^(y\n|\ny)+$/);
    expect(r.stdoutTruncated).toBe(true);
    const small = await make().run({ command: bash("printf 'a%.0s' $(seq 1 5000)"), maxStdoutBytes: 100 });
    expect(small).toMatchObject({ stdoutBytes: 5000, stdoutTruncated: true, outputLimitExceeded: false, exitCode: 0 });
    expect(small.stdout).toBe("a".repeat(100));
  });

  it("a fork bomb fails cleanly under the process limit", async () => {
    const sb =
      kind === "process"
        ? createSandbox({ kind: "process", writableDir: ws.dir, maxProcesses: 16 })
        : createSandbox({ kind: "bubblewrap", writableDir: ws.dir, maxProcesses: 16 });
    const probe = await sb.run({ command: ["true"] });
    if (probe.pidLimit === "none") {
      expect(probe.warnings.join(" ")).toMatch(/no process-count limit/);
      return;
    }
    const marker = `bomb_${kind}_${process.pid}`;
    const bomb = await sb.run({
      command: bash(`${marker}(){ ${marker}|${marker}& }; ${marker}; sleep 1; echo survived`),
      timeoutMs: 3_000,
      maxStderrBytes: 4096,
    });
    // The limit bites (fork fails) and the run ends: it finishes or is killed at the timeout, nothing survives.
    expect(bomb.stderr).toMatch(/fork: (retry: )?Resource temporarily unavailable/);
    expect(bomb.timedOut || bomb.exitCode === 0).toBe(true);
    expect(await goneSoon(marker)).toBe(true);
    expect((await sb.run({ command: ["true"] })).exitCode).toBe(0);
  });
});

describe.runIf(hasBwrap)("bubblewrap isolation", () => {
  const sandbox = () => createSandbox({ kind: "bubblewrap", writableDir: ws.dir }) as BubblewrapSandbox;

  it("cannot read /etc/shadow or the host home", async () => {
    const r = await sandbox().run({ command: bash("cat /etc/shadow; ls /root; ls /home") });
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("/etc/shadow: No such file or directory");
    expect(r.exitCode).not.toBe(0);
  });

  it("writes only inside the writable directory", async () => {
    const target = path.join(outside.dir, "escaped.txt");
    const r = await sandbox().run({
      command: bash(
        `echo inside > ok.txt; echo x > ${target}; echo x > /usr/escaped.txt; echo tmp > /tmp/t && cat /tmp/t`,
      ),
    });
    expect(r.stdout).toBe("tmp\n");
    expect(await readFile(path.join(ws.dir, "ok.txt"), "utf8")).toBe("inside\n");
    await expect(readFile(target)).rejects.toThrow();
    expect(r.stderr).toMatch(/Read-only file system|No such file or directory/);
  });

  it("holds no capabilities: cannot remount the read-only system writable", async () => {
    const marker = `/usr/skillport-escape-${process.pid}`;
    const r = await sandbox().run({
      command: bash(
        `grep CapEff /proc/self/status; mount -o remount,rw,bind /usr; touch ${marker}; mount -t tmpfs x ${ws.dir}`,
      ),
    });
    expect(r.stdout).toBe("CapEff:\t0000000000000000\n");
    expect(r.stderr).toMatch(/permission denied|must be superuser/i);
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(spawnSync("test", ["-e", marker]).status).toBe(1);
  });

  it("has no network unless allowed", async () => {
    const script = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;
    const before = connections;
    const denied = await sandbox().run({ command: bash(script), timeoutMs: 10_000 });
    expect(denied.exitCode).not.toBe(0);
    expect(denied.stdout).toBe("");
    expect(connections).toBe(before);
    const allowed = await createSandbox({ kind: "bubblewrap", writableDir: ws.dir, network: true }).run({
      command: bash(script),
      timeoutMs: 10_000,
    });
    expect(allowed.stdout).toBe("hello from host\n");
  });

  it("runs in its own PID namespace with a private /tmp", async () => {
    const marker = path.join(os.tmpdir(), `skillport-host-marker-${process.pid}`);
    await writeFile(marker, "host");
    const r = await sandbox().run({
      command: bash(`echo $$; ls /proc | grep -c '^[0-9]'; test -e ${marker} && echo leaked`),
    });
    await rm(marker);
    const [pid, count] = r.stdout.trim().split("\n");
    expect(Number(pid)).toBeLessThan(10);
    expect(Number(count)).toBeLessThan(10);
    expect(r.stdout).not.toContain("leaked");
  });

  it("keeps one launcher ready between runs and stops it on close", async () => {
    const launchers = () =>
      spawnSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
        .stdout.split("\n")
        .filter((l) => l.trim().split(/\s+/)[1] === String(process.pid) && l.includes("mapfile"));
    // Other sandboxes of this file keep their own idle launchers; the one the previous test's last run scheduled
    // (PREWARM_DELAY_MS after it started) must have appeared before the count starts.
    await new Promise((r) => setTimeout(r, 250));
    const others = new Set(launchers());
    const sb = sandbox();
    expect((await sb.run({ command: ["echo", "one"] })).stdout).toBe("one\n");
    expect((await sb.run({ command: ["echo", "two"] })).stdout).toBe("two\n");
    // Between runs, this sandbox holds a launcher of its own, ready for the next run.
    for (let i = 0; i < 500 && launchers().every((l) => others.has(l)); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(launchers().filter((l) => !others.has(l))).toHaveLength(1);
    await sb.close();
    // Killed launchers take a moment to be reaped; poll without a timing assertion.
    const own = () => launchers().filter((l) => !others.has(l));
    for (let i = 0; i < 500 && own().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(own()).toEqual([]);
    expect((await sb.run({ command: ["echo", "three"] })).stdout).toBe("three\n");
    await sb.close();
  });

  it("dies with its parent: SIGKILL of the host process leaves no sandboxed process behind", async () => {
    const bundleDir = await tempDir();
    try {
      const bundle = await bundleSandbox(bundleDir.dir);
      const marker = `sleep 876.${process.pid}`;
      const code = `
        import { createSandbox } from ${JSON.stringify(bundle)};
        const sb = createSandbox({ kind: "bubblewrap", writableDir: ${JSON.stringify(ws.dir)} });
        await sb.run({ command: ["/bin/bash", "-c", "echo started; ${marker}"], timeoutMs: 600000, onOutput: () => process.stdout.write("started\\n") });
      `;
      const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      await new Promise<void>((resolve) => child.stdout.on("data", () => resolve()));
      expect(await aliveSoon(marker)).toBe(true);
      const exited = new Promise((resolve) => child.on("close", (_code, signal) => resolve(signal)));
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
      // The kernel delivers the parent-death signal at once; reaping takes a moment, so poll (no timing assertion).
      expect(await goneSoon(marker)).toBe(true);
    } finally {
      await bundleDir.cleanup();
    }
  });

  it("host processes share one /etc snapshot and leave nothing else behind", async () => {
    const bundleDir = await tempDir();
    const stateTmp = await tempDir();
    try {
      const bundle = await bundleSandbox(bundleDir.dir);
      const code = `
        import { createSandbox } from ${JSON.stringify(bundle)};
        const sb = createSandbox({ kind: "bubblewrap", writableDir: ${JSON.stringify(ws.dir)} });
        const r = await sb.run({ command: ["/bin/cat", "/etc/passwd"] });
        process.stdout.write(r.exitCode + " " + (r.stdout.length > 0));
      `;
      const env = { ...process.env, TMPDIR: stateTmp.dir };
      for (let i = 0; i < 2; i++) {
        expect(execFileSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", env })).toBe(
          "0 true",
        );
      }
      const state = path.join(stateTmp.dir, `skillport-${process.getuid?.()}`);
      expect(readdirSync(state).filter((n) => n !== "bwrap-probe.json")).toEqual([
        expect.stringMatching(/^etc-[0-9a-f]+$/),
      ]);
      expect(readdirSync(stateTmp.dir)).toEqual([path.basename(state)]);
    } finally {
      await bundleDir.cleanup();
      await stateTmp.cleanup();
    }
  });

  it("passes paths verbatim as arguments (no shell involved)", async () => {
    await mkdir(path.join(ws.dir, "sub dir"), { recursive: true });
    const r = await sandbox().run({ command: ["/bin/pwd"], cwd: path.join(ws.dir, "sub dir") });
    expect(r.stdout).toBe(`${path.join(ws.dir, "sub dir")}\n`);
    expect(execFileSync("true").length).toBe(0);
  });
});
