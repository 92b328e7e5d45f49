// Runners fetch package archives from a running registry (decision 0378): what was put comes back verified; bytes
// that are not the job's digest, a server that is not a registry, a missing package and an unreachable registry
// each end in their own RunnerError code, never in a deployed version.
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packDirectory } from "@skillport/pack";
import { serveRegistry, type RunningRegistry } from "@skillport/registry";
import { RegistryPackageStore, RunnerError } from "@skillport/runners";

const example = path.resolve(import.meta.dirname, "../../../examples/package");
let tmp: string;
let registry: RunningRegistry;
let token: string;
let packed: { archive: Uint8Array; versionId: string };

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "runners-registry-"));
  registry = await serveRegistry({
    database: `sqlite:${path.join(tmp, "registry.db")}`,
    blobs: path.join(tmp, "blobs"),
    readAccess: "token",
    webUi: false,
  });
  token = (await registry.store.createToken({ user: "ci", scopes: ["read", "publish"] })).token;
  packed = await packDirectory(example);
});
afterAll(async () => {
  await registry?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RunnerError);
  return (error as RunnerError).code;
}

/** A plain HTTP server answering every request with `body` (status 200): a proxy's error page, a tampered mirror. */
async function impostor(body: Uint8Array | string, type: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": type });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`, server };
}

describe("RegistryPackageStore", () => {
  it("puts an archive into the registry and gets the same bytes back, verified", async () => {
    const store = new RegistryPackageStore(registry.url, { token });
    const put = await store.put(packed.versionId, packed.archive);
    expect(put.versionId).toBe(packed.versionId);
    const bytes = await store.get(put.versionId, put.digest);
    expect(Buffer.from(bytes).equals(Buffer.from(packed.archive))).toBe(true);
  });

  it("refuses what is not the job's: another digest, tampered bytes, an HTML page, a missing package", async () => {
    const store = new RegistryPackageStore(registry.url, { token });
    const { digest } = await store.put(packed.versionId, packed.archive);
    expect(await codeOf(store.get(packed.versionId, `sha256:${"0".repeat(64)}`))).toBe("PACKAGE_DIGEST");
    expect(await codeOf(store.get("f".repeat(24), digest))).toBe("PACKAGE_NOT_FOUND");
    expect(await codeOf(store.get("../../etc/passwd", digest))).toBe("JOB_INVALID");

    const tampered = Buffer.from(packed.archive);
    tampered.writeUInt8((tampered.readUInt8(tampered.length - 30) ^ 0xff) & 0xff, tampered.length - 30);
    for (const fake of [
      await impostor(tampered, "application/zip"),
      await impostor("<html>sign in</html>", "text/html"),
    ]) {
      try {
        expect(await codeOf(new RegistryPackageStore(fake.url).get(packed.versionId, digest))).toBe("PACKAGE_DIGEST");
        expect(await codeOf(new RegistryPackageStore(fake.url).put(packed.versionId, packed.archive))).toBe(
          "PACKAGE_UNAVAILABLE",
        );
      } finally {
        fake.server.close();
      }
    }
  });

  it("without a token a token-only registry refuses; an unreachable one is PACKAGE_UNAVAILABLE, token never shown", async () => {
    const anonymous = new RegistryPackageStore(registry.url, { retries: 0 });
    const { digest } = await new RegistryPackageStore(registry.url, { token }).put(packed.versionId, packed.archive);
    const denied = await anonymous.get(packed.versionId, digest).catch((e: unknown) => e as RunnerError);
    expect((denied as RunnerError).code).toBe("PACKAGE_UNAVAILABLE");
    expect((denied as RunnerError).message).toMatch(/401/);
    expect(await codeOf(anonymous.put(packed.versionId, packed.archive))).toBe("PACKAGE_UNAVAILABLE");

    const gone = await impostor("", "text/plain");
    const url = gone.url;
    await new Promise((resolve) => gone.server.close(resolve));
    const secret = "sk-do-not-print-me";
    const error = await new RegistryPackageStore(url, { token: secret, retries: 0 })
      .get(packed.versionId, digest)
      .catch((e: unknown) => e as RunnerError);
    expect((error as RunnerError).code).toBe("PACKAGE_UNAVAILABLE");
    expect((error as RunnerError).message).not.toContain(secret);
    expect(() => new RegistryPackageStore("ftp://x")).toThrow(RunnerError);
    expect(() => new RegistryPackageStore("http://user:pw@127.0.0.1:1")).toThrow(/without credentials/);
  });
});
