// The egress forwarder held by the launcher (decision 0430): real bubblewrap, real socat, curl, an HTTP server on
// 127.0.0.1. On the in-run forwarder the run's own pid namespace holds socat and a wrapper shell; here it must not.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import http from "node:http";
import { readlinkSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createSandbox } from "./sandbox.js";
import { EgressProxy } from "./egress.js";
import { findNsenter, forwarderProgram, holdForwarder } from "./egress-forwarder.js";
import { runProcess, startWaiting } from "./run-process.js";
import { canHoldForwarder, useWorkspaces } from "./__fixtures__/helpers.js";

const run = canHoldForwarder(findNsenter, console.warn) ? describe : describe.skip;

let server: http.Server;
let port = 0;
beforeAll(async () => {
  server = http.createServer((req, res) => res.end(`served ${req.url}\n`));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const workspace = useWorkspaces();
const hostNet = (): string => readlinkSync("/proc/self/ns/net");
/** The run's processes (its own pid namespace) by command line, and its network namespace, then the curl answer. */
const probe = (url: string) => [
  "/bin/bash",
  "-c",
  `for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done | grep -E 'socat|TCP-LISTEN|skillport-egress' | grep -v grep; readlink /proc/self/ns/net; curl -sS --max-time 5 ${url}`,
];

run("egress forwarder held by the launcher (root hosts)", () => {
  it("a run through the proxy starts no forwarder or wrapper of its own, shares no namespace with the host, and reaches a declared host", async () => {
    const proxy = await EgressProxy.start({ allow: [{ host: "localhost", port, private: true }] });
    const sandbox = createSandbox({ kind: "bubblewrap", writableDir: await workspace("held"), prewarmEgress: true });
    try {
      for (const name of ["first", "second"]) {
        // The second run's launcher is prepared by a timer due 25 ms after the first run starts: it fires first.
        if (name === "second") await new Promise((done) => setTimeout(done, 30));
        // The second run is traced too: strace sits in front of the identity drop, inside the shared namespace.
        const r = await sandbox.run({
          command: probe(`http://localhost:${port}/${name}`),
          egress: proxy,
          ...(name === "second" && { trace: true }),
        });
        const lines = r.stdout.trim().split("\n");
        // Only two lines: no socat, no wrapper shell among the run's processes; then the namespace, then the answer.
        expect(lines, r.stderr).toHaveLength(2);
        expect(lines[0]).toMatch(/^net:\[\d+\]$/);
        expect(lines[0]).not.toBe(hostNet());
        expect(lines[1]).toBe(`served /${name}`);
        if (name === "second" && r.trace !== undefined) {
          expect(r.trace.processes).toContain("/usr/bin/curl");
          expect(r.trace.processes.some((p) => /socat|setpriv|nsenter/.test(p))).toBe(false);
          expect(r.trace.connects).toEqual([]);
        }
      }
      expect(proxy.events.map((e) => [e.path, e.allowed])).toEqual([
        ["/first", true],
        ["/second", true],
      ]);
    } finally {
      await sandbox.close();
      await proxy.close();
    }
  });

  it("a run without the proxy after proxy runs gets a namespace of its own with nothing listening", async () => {
    const proxy = await EgressProxy.start({ allow: [{ host: "localhost", port, private: true }] });
    const sandbox = createSandbox({ kind: "bubblewrap", writableDir: await workspace("kinds"), prewarmEgress: true });
    try {
      const first = await sandbox.run({ command: probe(`http://localhost:${port}/p`), egress: proxy });
      expect(first.stdout).toContain("served /p");
      const plain = await sandbox.run({
        command: ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3128 && echo listening || echo nothing"],
      });
      expect(plain.stdout).toBe("nothing\n");
      const again = await sandbox.run({ command: probe(`http://localhost:${port}/q`), egress: proxy });
      expect(again.stdout).toContain("served /q");
    } finally {
      await sandbox.close();
      await proxy.close();
    }
  });

  it("the denial reaches the program inside as before", async () => {
    const proxy = await EgressProxy.start({ allow: [] });
    const sandbox = createSandbox({ kind: "bubblewrap", writableDir: await workspace("denied"), prewarmEgress: true });
    try {
      const r = await sandbox.run({ command: probe(`http://elsewhere.example:${port}/x`), egress: proxy });
      expect(r.stdout).toContain("skillport egress proxy: destination not declared: elsewhere.example");
    } finally {
      await sandbox.close();
      await proxy.close();
    }
  });

  it("with no launcher prepared ahead, a run through the proxy starts its own forwarder rather than wait for one", async () => {
    const proxy = await EgressProxy.start({ allow: [{ host: "localhost", port, private: true }] });
    const sandbox = createSandbox({ kind: "bubblewrap", writableDir: await workspace("cold"), prewarm: false });
    try {
      const r = await sandbox.run({ command: probe(`http://localhost:${port}/cold`), egress: proxy });
      expect(r.stdout).toMatch(/socat|skillport-egress/);
      expect(r.stdout).toContain("served /cold");
      expect(r.stdout).not.toContain(hostNet());
    } finally {
      await sandbox.close();
      await proxy.close();
    }
  });

  it("a sandbox with the host network keeps the in-run forwarder (its own socat) and still goes through the proxy", async () => {
    const proxy = await EgressProxy.start({ allow: [{ host: "localhost", port, private: true }] });
    const sandbox = createSandbox({ kind: "bubblewrap", writableDir: await workspace("in-run"), network: true });
    try {
      const r = await sandbox.run({ command: probe(`http://localhost:${port}/in-run`), egress: proxy });
      expect(r.stdout).toMatch(/socat|skillport-egress/);
      expect(r.stdout).toContain("served /in-run");
      expect(r.warnings).toContainEqual(expect.stringContaining("the egress proxy is not the only way out"));
      expect(proxy.events).toMatchObject([{ path: "/in-run", allowed: true }]);
    } finally {
      await sandbox.close();
      await proxy.close();
    }
  });

  it("a launcher whose forwarder's namespace turns out to be the host's refuses to run anything", async () => {
    // A stand-in for bwrap that reports its own pid (in the host's network namespace) as the forwarder's: entering
    // it would give the run the host network. The launcher must stop there.
    const dir = await workspace("fake-bwrap");
    const fake = path.join(dir, "fake-bwrap");
    await writeFile(fake, '#!/bin/bash\necho "{\\"child-pid\\": $$," >&9; exec 9>&-; exec sleep 30\n');
    await chmod(fake, 0o755);
    const forwarder = holdForwarder({
      bwrapPath: fake,
      policyArgs: [],
      dropArgv: [],
      forwarder: forwarderProgram()!,
      nsenter: findNsenter()!,
      filter: undefined,
      keep: [3],
    });
    try {
      const waiting = startWaiting("", "/", {}, ["/bin/echo"], undefined, forwarder.script);
      const outcome = await runProcess(
        {
          file: "/bin/echo",
          args: ["ran"],
          cwd: "/",
          env: {},
          timeoutMs: 20_000,
          maxStdoutBytes: 4096,
          maxStderrBytes: 4096,
          maxOutputBytes: 65536,
        },
        waiting,
      );
      expect(outcome.stdout.text()).toBe("");
      expect(outcome.exitCode).toBe(125);
      expect(outcome.stderr.text()).toContain("the egress forwarder's network namespace is the host's");
    } finally {
      forwarder.dispose();
    }
  });
});
