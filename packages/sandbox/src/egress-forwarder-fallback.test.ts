// A host where a launcher cannot hold the egress forwarder (decision 0430): the sandbox notices the first launcher
// that gave up, says so once, and from then on runs start their forwarder themselves. The forwarder a launcher would
// hold is replaced by one that exits at once; the in-run forwarder stays the real one.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { canHoldForwarder, useWorkspaces } from "./__fixtures__/helpers.js";

vi.mock("./egress-forwarder.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("./egress-forwarder.js")>();
  let calls = 0;
  return {
    ...real,
    // The sandbox asks once, when it is made (the launcher's forwarder); runs ask again for their own.
    forwarderProgram: () => (calls++ === 0 ? { argv: ["/bin/false"], node: false } : real.forwarderProgram()),
  };
});

const { createSandbox } = await import("./sandbox.js");
const { EgressProxy } = await import("./egress.js");
const { findNsenter } = await import("./egress-forwarder.js");

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

run("a launcher that cannot hold the forwarder", () => {
  it("fails no run silently: a run that took it exits 125 with one line, later runs start their own forwarder and say why once", async () => {
    const proxy = await EgressProxy.start({ allow: [{ host: "localhost", port, private: true }] });
    const sandbox = createSandbox({
      kind: "bubblewrap",
      writableDir: await workspace("fallback"),
      prewarmEgress: true,
    });
    const command = ["/bin/bash", "-c", `curl -sS --max-time 5 http://localhost:${port}/ok`];
    try {
      const warnings: string[] = [];
      let served = false;
      // A launcher still setting up when a run arrives is used by it (that run fails); each one that died first
      // switches the sandbox to the in-run forwarder. Bounded: the first dead one found ends it.
      for (let i = 0; i < 10 && !served; i++) {
        const r = await sandbox.run({ command, egress: proxy });
        warnings.push(...r.warnings);
        if (r.exitCode === 0) {
          expect(r.stdout).toBe("served /ok\n");
          served = true;
        } else {
          expect(r.exitCode).toBe(125);
          expect(r.stderr).toMatch(/^skillport: the egress forwarder (did not start|does not accept connections)\n$/);
          await new Promise((done) => setTimeout(done, 200));
        }
      }
      expect(served).toBe(true);
      expect(warnings.filter((w) => w.includes("could not hold the egress forwarder"))).toHaveLength(1);
      const again = await sandbox.run({ command, egress: proxy });
      expect(again.stdout).toBe("served /ok\n");
      expect(again.warnings.some((w) => w.includes("could not hold"))).toBe(false);
    } finally {
      await sandbox.close();
      await proxy.close();
    }
  });
});
