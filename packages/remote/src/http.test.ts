import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { exportSkill } from "@skillport/pack";
import { makeTempDir, removeDir, writeTree } from "@skillport/testing";
import { HttpSkillSource, type HttpSkillSourceOptions } from "./http/source.js";
import { RemoteSourceError } from "./errors.js";
import { stateFile } from "./test-support/cache.js";
import { publish, startHttpServer, type PublishedSkill, type TestHttpServer } from "./test-support/http-server.js";

const skillMd = (name: string, body = "Body.") =>
  `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\n${body}\n`;

let root: string;
let server: TestHttpServer;
let other: TestHttpServer;
let archive: Uint8Array;
let n = 0;
let cacheDir: string;

beforeAll(async () => {
  root = await makeTempDir("skillport-http-");
  await writeTree(root, {
    "packed/SKILL.md": skillMd("packed"),
    "packed/references/guide.md": "# Guide\n",
    "packed/scripts/run.sh": "#!/bin/sh\necho hi\n",
  });
  archive = (await exportSkill(path.join(root, "packed"))).archive;
});
afterAll(async () => removeDir(root));
beforeEach(async () => {
  server = await startHttpServer();
  other = await startHttpServer();
  cacheDir = path.join(root, "cache", String(++n));
});
afterEach(async () => {
  await server.stop();
  await other.stop();
});

const alpha = (body = "Body."): PublishedSkill => ({
  name: "alpha",
  type: "skill-md",
  file: "alpha/SKILL.md",
  bytes: skillMd("alpha", body),
});
const packed = (): PublishedSkill => ({ name: "packed", type: "archive", file: "packed.skill", bytes: archive });
const open = (options: Partial<HttpSkillSourceOptions> = {}) =>
  new HttpSkillSource({
    url: server.url,
    cacheDir,
    retryBaseMs: 1,
    maxRetryDelayMs: 20,
    syncIntervalMs: 0,
    ...options,
  });
const fetched = (p: string) => server.requests.filter((r) => r.path.endsWith(p)).length;

describe("HttpSkillSource", () => {
  it("reads a well-known index: a SKILL.md entry and an archive entry", async () => {
    publish(server, [alpha(), packed()]);
    const source = open();
    expect(await source.discover()).toEqual(["alpha", "packed"]);
    expect(await source.getBody("alpha")).toContain("Body.");
    expect((await source.listFiles("packed")).map((f) => f.path)).toEqual([
      "SKILL.md",
      "references/guide.md",
      "scripts/run.sh",
    ]);
    expect(new TextDecoder().decode(await source.getReference("packed", "guide.md"))).toBe("# Guide\n");
    expect(source.name).toBe(`${server.url}/.well-known/agent-skills/index.json`);
  });

  it("onFetch is told once per sync, once the index request is out and before any file is fetched", async () => {
    publish(server, [alpha(), packed()]);
    const told: number[] = [];
    const source = open({ onFetch: () => told.push(server.requests.filter((r) => r.path.endsWith(".skill")).length) });
    await source.sync();
    expect(told).toEqual([0]);
    await source.sync();
    expect(told).toEqual([0, 1]);
  });

  it("revalidates the index with If-None-Match and fetches nothing more on a 304, also after a restart", async () => {
    publish(server, [alpha(), packed()]);
    await open().discover();
    expect(await open().sync()).toMatchObject({ changed: false, offline: false });
    const index = server.requests.filter((r) => r.path.endsWith("index.json"));
    expect(index).toHaveLength(2);
    expect(index[1]?.headers["if-none-match"]).toBeDefined();
    expect(fetched("alpha/SKILL.md")).toBe(1);
    expect(fetched("packed.skill")).toBe(1);
    // Within the interval a restarted source asks nothing at all.
    const before = server.requests.length;
    expect(await open({ syncIntervalMs: 3_600_000 }).discover()).toEqual(["alpha", "packed"]);
    expect(server.requests.length).toBe(before);
  });

  it("picks up a changed file and fetches only the artifact whose digest changed", async () => {
    publish(server, [alpha(), packed()]);
    const source = open();
    expect(await source.getBody("alpha")).toContain("Body.");
    publish(server, [alpha("Changed body."), packed()]);
    expect(await source.sync()).toMatchObject({ changed: true, offline: false });
    expect(await source.getBody("alpha")).toContain("Changed body.");
    expect(fetched("alpha/SKILL.md")).toBe(2);
    expect(fetched("packed.skill")).toBe(1);
  });

  it("retries a 500 and a 429 with backoff, then reads", async () => {
    publish(server, [alpha()]);
    server.failures.set("/.well-known/agent-skills/index.json", [
      { status: 500 },
      { status: 429, headers: { "retry-after": "0" } },
    ]);
    server.failures.set("/.well-known/agent-skills/alpha/SKILL.md", [{ status: 503 }]);
    expect(await open().discover()).toEqual(["alpha"]);
    expect(fetched("index.json")).toBe(3);
    expect(fetched("alpha/SKILL.md")).toBe(2);
  });

  it("gives up after the retries and then serves the last good copy, reporting why", async () => {
    publish(server, [alpha()]);
    const source = open({ retries: 1 });
    expect(await source.discover()).toEqual(["alpha"]);
    server.failures.set("/.well-known/agent-skills/index.json", [{ status: 500 }, { status: 500 }]);
    const result = await source.sync();
    expect(result).toMatchObject({ offline: true, changed: false });
    expect(result.error).toMatch(/answered 500 \(after 2 attempts\)/);
    expect(source.status()).toMatchObject({ offline: true, error: result.error });
    expect(await source.getBody("alpha")).toContain("Body.");
  });

  it("refuses an artifact whose digest does not match, keeping the last good copy", async () => {
    publish(server, [{ ...alpha(), digest: "0".repeat(64) }]);
    const error = await open()
      .discover()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteSourceError);
    expect((error as RemoteSourceError).code).toBe("REMOTE_INTEGRITY");
    expect((error as Error).message).toMatch(/digest mismatch/);

    cacheDir = path.join(root, "cache", `${n}-good`);
    publish(server, [alpha()]);
    const source = open();
    expect(await source.getBody("alpha")).toContain("Body.");
    // The publisher changes the file but not the digest: refused, the verified copy stays.
    publish(server, [{ ...alpha("Tampered."), digest: undefined }]);
    server.routes.set("/.well-known/agent-skills/alpha/SKILL.md", { body: skillMd("alpha", "Evil.") });
    const result = await source.sync();
    expect(result.offline).toBe(true);
    expect(result.error).toMatch(/digest mismatch/);
    expect(await source.getBody("alpha")).toContain("Body.");
  });

  it("refuses a redirect to another host unless that origin is allowed", async () => {
    publish(other, [alpha()]);
    server.redirects.set("/.well-known/agent-skills/index.json", `${other.url}/.well-known/agent-skills/index.json`);
    await expect(open().discover()).rejects.toThrow(/redirected to another host/);
    const allowed = open({ allowedOrigins: [other.origin], cacheDir: `${cacheDir}-allowed` });
    expect(await allowed.discover()).toEqual(["alpha"]);
  });

  it("never follows a redirect from https down to http (TLS cannot be served here without a trusted certificate, so fetch is stubbed)", async () => {
    const seen: string[] = [];
    const stub: typeof fetch = async (input) => {
      seen.push(String(input));
      return new Response(null, {
        status: 302,
        headers: { location: "http://example.com/.well-known/agent-skills/index.json" },
      });
    };
    const source = new HttpSkillSource({ url: "https://example.com/", cacheDir, fetch: stub, retries: 0 });
    await expect(source.discover()).rejects.toThrow(/redirected from https to http; refused/);
    expect(seen).toEqual(["https://example.com/.well-known/agent-skills/index.json"]);
  });

  it("stops a redirect loop", async () => {
    server.redirects.set("/.well-known/agent-skills/index.json", `${server.url}/.well-known/agent-skills/index.json`);
    await expect(open().discover()).rejects.toThrow(/more than 5 redirects/);
  });

  it("refuses an artifact on another host unless allowed, and sends credentials only to the index's origin", async () => {
    other.routes.set("/alpha.md", { body: skillMd("alpha") });
    publish(
      server,
      [],
      [
        {
          name: "alpha",
          type: "skill-md",
          description: "x",
          url: `${other.url}/alpha.md`,
          digest: `sha256:${(await import("./test-support/http-server.js")).sha256(skillMd("alpha"))}`,
        },
      ],
    );
    await expect(open().discover()).rejects.toThrow(/served from another host/);
    const url = server.url.replace("http://", "http://reader:pa55word@");
    const source = open({ url, allowedOrigins: [other.origin], cacheDir: `${cacheDir}-allowed` });
    expect(source.name).not.toContain("pa55word");
    expect(await source.discover()).toEqual(["alpha"]);
    expect(server.requests.at(-1)?.headers.authorization).toBe(
      `Basic ${Buffer.from("reader:pa55word").toString("base64")}`,
    );
    expect(other.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  it("enforces the index size, skill count and file size limits", async () => {
    publish(server, [alpha(), packed()]);
    await expect(open({ maxIndexBytes: 50 }).discover()).rejects.toThrow(
      /over the limit of 50|more than the limit of 50/,
    );
    await expect(open({ maxSkills: 1, cacheDir: `${cacheDir}-2` }).discover()).rejects.toThrow(
      /lists 2 skills, over the limit of 1/,
    );
    await expect(open({ maxFileBytes: 20, cacheDir: `${cacheDir}-3` }).discover()).rejects.toThrow(/limit of 20/);
    await expect(open({ maxArchiveFiles: 2, cacheDir: `${cacheDir}-4` }).discover()).rejects.toThrow(
      /archive was refused/,
    );
  });

  it("reports entries it cannot read instead of dropping them silently", async () => {
    publish(
      server,
      [alpha()],
      [
        { name: "../evil", type: "skill-md", url: "x", digest: `sha256:${"0".repeat(64)}` },
        { name: "legacy", description: "v0.1 style", files: ["SKILL.md"] },
        { name: "nodigest", type: "skill-md", url: "n/SKILL.md" },
      ],
    );
    const source = open();
    expect(await source.discover()).toEqual(["alpha"]);
    expect(source.status().skipped.map((s) => s.where)).toEqual(["../evil", "legacy", "nodigest"]);
  });

  it("refuses a document that is not a v0.2 index", async () => {
    server.routes.set("/.well-known/agent-skills/index.json", { body: JSON.stringify({ skills: [] }) });
    await expect(open().discover()).rejects.toThrow(/unsupported index schema/);
    server.routes.set("/.well-known/agent-skills/index.json", { body: "<html>" });
    await expect(open({ cacheDir: `${cacheDir}-2` }).discover()).rejects.toThrow(/not valid UTF-8 JSON/);
  });

  describe("deadlines against a server that trickles one byte at a time (issue 19)", () => {
    const INDEX = "/.well-known/agent-skills/index.json";
    const trickle = (p: string, ms = 10) => {
      const route = server.routes.get(p);
      if (route === undefined) throw new Error(`no route ${p}`);
      server.routes.set(p, { ...route, etag: undefined, trickleMs: ms });
    };

    it("the sync deadline stops a trickling index mid-stream, is not retried, and the last good copy stays", async () => {
      publish(server, [alpha()]);
      expect(await open().getBody("alpha")).toContain("Body.");
      // The same cache, restarted with a short deadline: it has a copy to fall back on.
      const source = open({ syncDeadlineMs: 300, retries: 3 });
      expect(await source.getBody("alpha")).toContain("Body.");
      publish(server, [alpha("Changed.")]);
      trickle(INDEX);
      const before = fetched("index.json");
      const result = await source.sync();
      expect(result).toMatchObject({ offline: true, changed: false });
      expect(result.error).toMatch(/deadline of 300 ms \(syncDeadlineMs\) passed; stopped/);
      expect(fetched("index.json") - before).toBe(1);
      expect(await source.getBody("alpha")).toContain("Body.");
      // No copy yet: the same failure is the error.
      await expect(open({ syncDeadlineMs: 300, cacheDir: `${cacheDir}-fresh` }).discover()).rejects.toThrow(
        /syncDeadlineMs/,
      );
    });

    it("the file deadline stops one trickling artifact", async () => {
      publish(server, [alpha(), packed()]);
      trickle("/.well-known/agent-skills/alpha/SKILL.md");
      await expect(open({ fileDeadlineMs: 300, retries: 2 }).discover()).rejects.toThrow(
        /alpha\/SKILL\.md: the file's deadline of 300 ms \(fileDeadlineMs\) passed/,
      );
      expect(fetched("alpha/SKILL.md")).toBe(1);
    });

    it("the sync deadline covers every file of the sync together", async () => {
      const skills = ["a1", "a2", "a3", "a4"].map((name): PublishedSkill => ({
        name,
        type: "skill-md",
        file: `${name}/SKILL.md`,
        bytes: skillMd(name),
      }));
      publish(server, skills);
      for (const s of skills) trickle(`/.well-known/agent-skills/${s.file}`, 5);
      // Each file alone is far inside its own deadline; together they pass the sync's.
      await expect(open({ syncDeadlineMs: 400, fileDeadlineMs: 120_000 }).discover()).rejects.toThrow(/syncDeadlineMs/);
    });

    it.each([0, -1, Number.NaN])("refuses a deadline of %s", (ms) => {
      expect(() => open({ syncDeadlineMs: ms })).toThrow(/syncDeadlineMs must be a number of milliseconds above 0/);
      expect(() => open({ fileDeadlineMs: ms })).toThrow(/fileDeadlineMs must be/);
    });
  });

  it("keeps everything under its cache folder", async () => {
    publish(server, [alpha()]);
    const source = open();
    const location = await source.getLocation("alpha");
    expect(location.startsWith(cacheDir)).toBe(true);
    expect(existsSync(stateFile(cacheDir))).toBe(true);
  });
});
