// Issue 19, hole 3: copies are kept per credential identity. Alice syncs a private skill; anonymous and mallory on the
// same cache (the default cache root, or one cache folder given to all) get nothing of hers, whether the server is
// up, refuses them (401/403) or is down; and refused credentials end the copy they had (decision 0240).
import { existsSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir } from "@skillport/testing";
import { GitSkillSource } from "./git/source.js";
import { HttpSkillSource } from "./http/source.js";
import { RemoteSourceError } from "./errors.js";
import type { SnapshotSource } from "./snapshot-source.js";
import { identityFolders } from "./test-support/cache.js";
import { basic, commitAndPush, makeRepo, startHttpBackend, type RequestGuard } from "./test-support/git-servers.js";
import { publish, startHttpServer } from "./test-support/http-server.js";

const skill = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\nAlice's private notes.\n`;

let root: string;
let n = 0;
const savedCacheEnv = process.env.SKILLPORT_CACHE_DIR;

beforeAll(async () => {
  root = await makeTempDir("skillport-cache-identity-");
});
afterAll(async () => {
  await removeDir(root);
});
afterEach(() => {
  if (savedCacheEnv === undefined) delete process.env.SKILLPORT_CACHE_DIR;
  else process.env.SKILLPORT_CACHE_DIR = savedCacheEnv;
});

/** alice:pw reads; mallory is known and forbidden (403); anyone else is asked to authenticate (401). */
const usersGuard: RequestGuard = (authorization) =>
  authorization === basic("alice:pw") ? undefined : authorization === basic("mallory:x") ? 403 : 401;

/** Nothing of alice's: the read is refused with an error, never served from her copy. */
async function expectNothing(source: SnapshotSource, code: string | RegExp): Promise<void> {
  const error = await source.discover().then(
    (ids) => ids,
    (e: unknown) => e,
  );
  expect(error, "a copy was served").toBeInstanceOf(Error);
  expect((error as { code?: string }).code).toMatch(code);
  await expect(source.getBody("private")).rejects.toThrow();
}

/** One cache for every caller: the default cache root (through the environment), or one folder given to all. */
const layouts = [
  ["the default cache root", (dir: string) => ((process.env.SKILLPORT_CACHE_DIR = dir), {})],
  ["one cacheDir given to every caller", (dir: string) => ({ cacheDir: dir })],
] as const;

describe.each(layouts)("git over smart HTTP, %s", (_label, cacheOptions) => {
  async function setUp() {
    const base = path.join(root, `git-${++n}`);
    await mkdir(base, { recursive: true });
    const { work } = await makeRepo(base, "team");
    const commit = await commitAndPush(work, { "skills/private/SKILL.md": skill("private") });
    const server = await startHttpBackend(base);
    server.guard = usersGuard;
    const cache = cacheOptions(path.join(root, `cache-${n}`));
    const url = `${server.url}/team.git`;
    const open = (who: { username?: string; password?: string }, extra = {}) =>
      new GitSkillSource({ url, ...who, ...cache, syncIntervalMs: 0, timeoutMs: 20_000, ...extra });
    return { server, open, commit };
  }

  it("a pinned commit with credentials is still checked, so refused access ends it too", async () => {
    const { server, open, commit } = await setUp();
    try {
      const alice = open({ username: "alice", password: "pw" }, { ref: commit });
      expect(await alice.discover()).toEqual(["private"]);
      server.guard = () => 403;
      await expect(alice.sync()).rejects.toMatchObject({ code: "REMOTE_ACCESS_DENIED" });
      await expectNothing(
        open({ username: "alice", password: "pw" }, { ref: commit, syncIntervalMs: 3_600_000 }),
        /REMOTE_ACCESS_DENIED/,
      );
    } finally {
      await server.stop();
    }
  }, 60_000);

  it("online: anonymous and mallory get nothing; alice's access refused later ends her copy too", async () => {
    const { server, open } = await setUp();
    try {
      const alice = open({ username: "alice", password: "pw" });
      expect(await alice.discover()).toEqual(["private"]);
      // Within a long interval a source serves its copy without asking: the copy must not be found at all.
      await expectNothing(open({}, { syncIntervalMs: 3_600_000 }), /REMOTE_ACCESS_DENIED/);
      await expectNothing(open({}), /REMOTE_ACCESS_DENIED/);
      await expectNothing(
        open({ username: "mallory", password: "x" }, { syncIntervalMs: 3_600_000 }),
        /REMOTE_ACCESS_DENIED/,
      );
      await expectNothing(open({ username: "alice", password: "guess" }), /REMOTE_ACCESS_DENIED/);
      await expectNothing(open({ username: "alice" }), /REMOTE_ACCESS_DENIED/);

      for (const status of [401, 403]) {
        const again = open({ username: "alice", password: "pw" });
        server.guard = usersGuard;
        expect(await again.discover()).toEqual(["private"]);
        server.guard = () => status;
        // Refused is not offline: the copy is dropped, also for a restart that would not ask within its interval.
        await expect(again.sync()).rejects.toMatchObject({
          code: "REMOTE_ACCESS_DENIED",
          message: expect.stringContaining("credentials missing or refused"),
        });
        await expect(again.discover()).rejects.toBeInstanceOf(RemoteSourceError);
        await expectNothing(
          open({ username: "alice", password: "pw" }, { syncIntervalMs: 3_600_000 }),
          /REMOTE_ACCESS_DENIED/,
        );
      }
    } finally {
      await server.stop();
    }
  }, 60_000);

  it("credentials git takes from the environment (a GIT_CONFIG_* header) are an identity too", async () => {
    const { server, open } = await setUp();
    const saved = { ...process.env };
    try {
      Object.assign(process.env, {
        GIT_CONFIG_COUNT: "1",
        GIT_CONFIG_KEY_0: `http.${server.url}/.extraHeader`,
        GIT_CONFIG_VALUE_0: `Authorization: ${basic("alice:pw")}`,
      });
      const alice = open({});
      expect(await alice.discover()).toEqual(["private"]);
      for (const name of ["GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"]) delete process.env[name];
      // The source keeps the environment it was made with.
      expect((await alice.sync()).offline).toBe(false);
      await expectNothing(open({}, { syncIntervalMs: 3_600_000 }), /REMOTE_ACCESS_DENIED/);
    } finally {
      for (const name of ["GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"]) delete process.env[name];
      Object.assign(process.env, saved);
      await server.stop();
    }
  }, 60_000);

  it("down: alice is served her copy; anonymous and mallory get an outage, not her copy", async () => {
    const { server, open } = await setUp();
    expect(await open({ username: "alice", password: "pw" }).discover()).toEqual(["private"]);
    await server.stop();
    await expectNothing(open({}), /PROVIDER_UNAVAILABLE/);
    await expectNothing(open({ username: "mallory", password: "x" }), /PROVIDER_UNAVAILABLE/);
    const alice = open({ username: "alice", password: "pw" });
    expect(await alice.discover()).toEqual(["private"]);
    expect(alice.status().offline).toBe(true);
  }, 60_000);
});

describe.each(layouts)("well-known HTTP index, %s", (_label, cacheOptions) => {
  async function setUp() {
    const server = await startHttpServer();
    publish(server, [{ name: "private", type: "skill-md", file: "private/SKILL.md", bytes: skill("private") }]);
    // Alice's token may come in the address (Basic) or in a header option; both are her identity.
    server.guard = (headers) =>
      headers.authorization === basic("alice:pw") || headers["x-api-key"] === "alice-token"
        ? undefined
        : headers["x-api-key"] === "mallory-token"
          ? 403
          : 401;
    const cache = cacheOptions(path.join(root, `cache-${++n}`));
    const open = (url: string, headers?: Record<string, string>, extra = {}) =>
      new HttpSkillSource({ url, ...cache, ...(headers && { headers }), retries: 0, syncIntervalMs: 0, ...extra });
    return { server, open, withUser: (user: string) => server.url.replace("http://", `http://${user}@`) };
  }

  it("online: anonymous, mallory and other headers get nothing; a 401/403 later ends alice's copy", async () => {
    const { server, open, withUser } = await setUp();
    try {
      expect(await open(withUser("alice:pw")).discover()).toEqual(["private"]);
      expect(await open(server.url, { "X-Api-Key": "alice-token" }).discover()).toEqual(["private"]);
      await expectNothing(open(server.url, undefined, { syncIntervalMs: 3_600_000 }), /REMOTE_ACCESS_DENIED/);
      await expectNothing(open(withUser("mallory:x")), /REMOTE_ACCESS_DENIED/);
      await expectNothing(
        open(server.url, { "x-api-key": "mallory-token" }, { syncIntervalMs: 3_600_000 }),
        /REMOTE_ACCESS_DENIED/,
      );
      await expectNothing(open(server.url, { "user-agent": "anything" }), /REMOTE_ACCESS_DENIED/);

      const alice = open(withUser("alice:pw"));
      expect(await alice.discover()).toEqual(["private"]);
      for (const status of [401, 403]) {
        server.guard = () => status;
        await expect(alice.sync()).rejects.toMatchObject({ code: "REMOTE_ACCESS_DENIED" });
        await expect(alice.discover()).rejects.toMatchObject({ code: "REMOTE_ACCESS_DENIED" });
        await expectNothing(
          open(withUser("alice:pw"), undefined, { syncIntervalMs: 3_600_000 }),
          /REMOTE_ACCESS_DENIED/,
        );
      }
    } finally {
      await server.stop();
    }
  });

  it("down: alice is served her copy; anonymous and mallory get an outage, not her copy", async () => {
    const { server, open, withUser } = await setUp();
    expect(await open(withUser("alice:pw")).discover()).toEqual(["private"]);
    await server.stop();
    await expectNothing(open(server.url), /PROVIDER_UNAVAILABLE/);
    await expectNothing(open(withUser("mallory:x")), /PROVIDER_UNAVAILABLE/);
    const alice = open(withUser("alice:pw"));
    expect(await alice.discover()).toEqual(["private"]);
    expect(alice.status().offline).toBe(true);
  });
});

describe("the cache key", () => {
  it("is private, kept once per cache folder, and folder names carry no guessable hash of a password", async () => {
    const server = await startHttpServer();
    try {
      publish(server, [{ name: "private", type: "skill-md", file: "private/SKILL.md", bytes: skill("private") }]);
      const cacheDir = path.join(root, `cache-${++n}`);
      const url = server.url.replace("http://", "http://alice:pw@");
      await new HttpSkillSource({ url, cacheDir, retries: 0 }).discover();
      const key = path.join(cacheDir, "identity.key");
      expect(statSync(key).mode & 0o777).toBe(0o600);
      const [folder] = identityFolders(cacheDir);
      // Same credentials, same folder (the key is reused); another cache folder (another key), another name.
      await new HttpSkillSource({ url, cacheDir, retries: 0, syncIntervalMs: 0 }).discover();
      expect(identityFolders(cacheDir)).toEqual([folder]);
      const elsewhere = path.join(root, `cache-${++n}`);
      await new HttpSkillSource({ url, cacheDir: elsewhere, retries: 0 }).discover();
      expect(path.basename(identityFolders(elsewhere)[0] ?? "")).not.toBe(path.basename(folder ?? ""));

      // A key readable by others, or a link, is refused rather than used.
      const planted = path.join(root, `cache-${++n}`);
      await mkdir(planted, { recursive: true });
      await writeFile(path.join(planted, "identity.key"), Buffer.alloc(32), { mode: 0o644 });
      await expect(new HttpSkillSource({ url, cacheDir: planted, retries: 0 }).discover()).rejects.toThrow(
        /not a private 32-byte file/,
      );
      expect(existsSync(path.join(planted, "state.json"))).toBe(false);
    } finally {
      await server.stop();
    }
  });
});
