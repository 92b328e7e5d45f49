// The egress proxy and the per-run policy (issue 26): real bubblewrap runs, real curl, a real HTTP server on
// 127.0.0.1. Each attack test fails on a proxy that forwards without checking (the server would answer).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import http from "node:http";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { NetworkDestination } from "@skillport/core";
import { createSandbox, type Sandbox } from "./sandbox.js";
import { EgressProxy, isNonPublicAddress } from "./egress.js";
import { haveBubblewrap, useWorkspaces } from "./__fixtures__/helpers.js";

const hasBwrap = haveBubblewrap(console.warn);
const hasCurl = existsSync("/usr/bin/curl");
if (!hasCurl) console.warn("skipping egress runs: curl is not installed");
const run = hasBwrap && hasCurl ? describe : describe.skip;

let server: http.Server;
let port = 0;
const seen: { url: string; host: string }[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? "", host: req.headers.host ?? "" });
    res.end(`served ${req.url}\n`);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const workspace = useWorkspaces();
const curl = (args: string) => ["/bin/bash", "-c", `curl -sS --max-time 5 ${args} 2>&1`];

async function withProxy<T>(
  allow: NetworkDestination[],
  fn: (proxy: EgressProxy, sandbox: Sandbox) => Promise<T>,
  name: string,
): Promise<T> {
  const proxy = await EgressProxy.start({ allow });
  const sandbox = createSandbox({ kind: "bubblewrap", writableDir: await workspace(name) });
  try {
    return await fn(proxy, sandbox);
  } finally {
    await sandbox.close();
    await proxy.close();
  }
}

describe("non-public addresses", () => {
  it("loopback, private, link-local, unique-local, mapped and NAT64 forms are non-public; public ones are not", () => {
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "64:ff9b::a00:1",
      "::ffff:7f00:1",
    ]) {
      expect(isNonPublicAddress(a), a).toBe(true);
    }
    for (const a of ["93.184.215.14", "1.1.1.1", "2606:4700::1111"]) expect(isNonPublicAddress(a), a).toBe(false);
  });
});

run("egress proxy from inside bubblewrap (network namespace unshared)", () => {
  it("reaches a declared host (allowed, logged), through plain HTTP", async () => {
    await withProxy(
      [{ host: "localhost", port, private: true }],
      async (proxy, sandbox) => {
        const r = await sandbox.run({ command: curl(`http://localhost:${port}/hello`), egress: proxy });
        expect(r.stdout).toBe("served /hello\n");
        expect(r.egress).toMatchObject([
          { kind: "http", host: "localhost", port, path: "/hello", allowed: true, address: "127.0.0.1" },
        ]);
      },
      "allowed",
    );
  });

  it("denies an undeclared destination with a clear message inside, and logs the host asked for", async () => {
    await withProxy(
      [{ host: "localhost", port, private: true }],
      async (proxy, sandbox) => {
        const plain = await sandbox.run({ command: curl(`http://undeclared.example:${port}/x`), egress: proxy });
        expect(plain.stdout).toContain("skillport egress proxy: destination not declared: undeclared.example");
        const tls = await sandbox.run({ command: curl("-v https://example.com/"), egress: proxy });
        expect(tls.stdout).toMatch(/403 Forbidden by Skillport: destination not declared/);
        expect([...(plain.egress ?? []), ...(tls.egress ?? [])]).toMatchObject([
          {
            kind: "http",
            host: "undeclared.example",
            allowed: false,
            reason: `destination not declared: undeclared.example:${port}`,
          },
          { kind: "connect", host: "example.com", port: 443, allowed: false },
        ]);
      },
      "undeclared",
    );
  });

  it("refuses a raw IP and numeric host tricks that were not declared", async () => {
    const before = seen.length;
    await withProxy(
      [{ host: "localhost", port, private: true }],
      async (proxy, sandbox) => {
        for (const target of [`127.0.0.1:${port}`, `2130706433:${port}`, `0x7f.1:${port}`]) {
          const r = await sandbox.run({ command: curl(`http://${target}/raw`), egress: proxy });
          expect(r.stdout, target).toMatch(
            /skillport egress proxy: (raw IP address not declared|numeric host name refused)/,
          );
        }
        expect(proxy.events.every((e) => !e.allowed)).toBe(true);
      },
      "raw-ip",
    );
    expect(seen.length).toBe(before);
  });

  it("refuses a public-declared name that resolves to loopback (DNS trick) unless declared under network-private", async () => {
    const before = seen.length;
    await withProxy(
      [{ host: "localhost", port, private: false }],
      async (proxy, sandbox) => {
        const r = await sandbox.run({ command: curl(`http://localhost:${port}/trick`), egress: proxy });
        expect(r.stdout).toContain("resolves to a loopback or private address (127.0.0.1)");
        expect(r.egress?.[0]).toMatchObject({ allowed: false, address: "127.0.0.1" });
      },
      "dns-trick",
    );
    expect(seen.length).toBe(before);
  });

  it("resolves a name once and connects to the address it checked (a rebinding resolver gets no second question)", async () => {
    let calls = 0;
    const answers = ["127.0.0.1", "10.0.0.1"];
    const proxy = await EgressProxy.start({
      allow: [{ host: "rebind.test", port, private: true }],
      resolve: async () => [answers[Math.min(calls++, 1)]!],
    });
    const sandbox = createSandbox({ kind: "bubblewrap", writableDir: await workspace("rebind") });
    try {
      const r = await sandbox.run({ command: curl(`http://rebind.test:${port}/once`), egress: proxy });
      expect(r.stdout).toBe("served /once\n");
      expect(calls).toBe(1);
    } finally {
      await sandbox.close();
      await proxy.close();
    }
  });

  it("sends its own Host header and checks declared path prefixes (no dot-segment escape, no HTTPS)", async () => {
    await withProxy(
      [{ host: "localhost", port, paths: ["/api/"], private: true }],
      async (proxy, sandbox) => {
        seen.length = 0;
        const ok = await sandbox.run({
          command: curl(`-H 'Host: evil.example' http://localhost:${port}/api/v1`),
          egress: proxy,
        });
        expect(ok.stdout).toBe("served /api/v1\n");
        expect(seen).toEqual([{ url: "/api/v1", host: `localhost:${port}` }]);
        const outside = await sandbox.run({ command: curl(`http://localhost:${port}/admin`), egress: proxy });
        expect(outside.stdout).toContain("path not declared");
        const dots = await sandbox.run({
          command: curl(`--path-as-is http://localhost:${port}/api/%2e%2e/admin`),
          egress: proxy,
        });
        expect(dots.stdout).toContain("path not declared");
        expect(seen).toHaveLength(1);
      },
      "paths",
    );
  });

  it("a direct connection (no proxy) fails: the namespace has only loopback; the trace shows the attempt", async () => {
    await withProxy(
      [],
      async (proxy, sandbox) => {
        const r = await sandbox.run({
          command: curl(`--noproxy '*' http://127.0.0.1:${port}/direct`),
          egress: proxy,
          trace: true,
        });
        expect(r.exitCode).not.toBe(0);
        expect(r.egress).toEqual([]);
        if (r.trace !== undefined) {
          expect(r.trace.connects).toContainEqual(expect.objectContaining({ address: "127.0.0.1", port }));
          expect(r.trace.processes).toContain("/usr/bin/curl");
          expect(r.trace.processes.some((p) => p.endsWith("socat") || p.endsWith("setpriv"))).toBe(false);
        }
      },
      "direct",
    );
  });
});

run("trace", () => {
  it("the traced command holds no capability (only strace does) and cannot write the trace", async () => {
    const sandbox = createSandbox({ kind: "bubblewrap", writableDir: await workspace("trace-caps") });
    try {
      const r = await sandbox.run({
        command: [
          "/bin/bash",
          "-c",
          "grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status; echo forged > /run/skillport/trace 2>/dev/null || echo trace-protected",
        ],
        trace: true,
      });
      const hostIsRoot = process.getuid?.() === 0;
      expect(r.stdout).toContain("CapEff:\t0000000000000000");
      expect(r.stdout).toContain("CapBnd:\t0000000000000000");
      if (hostIsRoot) expect(r.stdout).toContain("trace-protected");
      expect(r.trace?.processes).toEqual(["/bin/bash", "/usr/bin/grep"]);
    } finally {
      await sandbox.close();
    }
  });
});

run("writes narrowed to declared folders", () => {
  it("writes where declared, nowhere else in the workspace; the trace lists the files written", async () => {
    const ws = await workspace("writes");
    await writeFile(path.join(ws, "keep.txt"), "host\n");
    const sandbox = createSandbox({ kind: "bubblewrap", writableDir: ws });
    try {
      const r = await sandbox.run({
        command: [
          "/bin/bash",
          "-c",
          `echo ok > out/result.txt && echo done; echo x > keep.txt 2>&1 || echo denied-keep; touch new.txt 2>/dev/null || echo denied-new; echo t > /tmp/t && echo tmp-ok`,
        ],
        writes: ["out"],
        trace: true,
      });
      expect(r.stdout.split("\n")).toEqual(["done", "denied-keep", "denied-new", "tmp-ok", ""]);
      expect(await readFile(path.join(ws, "out/result.txt"), "utf8")).toBe("ok\n");
      expect(await readFile(path.join(ws, "keep.txt"), "utf8")).toBe("host\n");
      if (r.trace !== undefined) expect(r.trace.filesWritten).toContain(path.join(ws, "out/result.txt"));
      // Without `writes` the whole workspace is writable, as before.
      const open = await sandbox.run({ command: ["/bin/bash", "-c", "touch new.txt && echo made"] });
      expect(open.stdout).toBe("made\n");
    } finally {
      await sandbox.close();
    }
  });
});
