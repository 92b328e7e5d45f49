import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SkillVerificationError } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FileBytes, FileChangedError } from "./files.js";
import { serveHttp } from "./http.js";
import { SkillServer, type SkillServerOptions } from "./server.js";
import { sha256Digest, type ServedFile, type ServedSkill } from "./snapshot.js";
import { folderRegistry, httpClient } from "./test-support/clients.js";

const TOKEN = "test-token-0123456789abcdef";
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});
let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "skillport-mcp-files-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function writeSkill(root: string, body: string): string {
  const dir = path.join(root, "one");
  mkdirSync(path.join(dir, "references"), { recursive: true });
  writeFileSync(
    path.join(dir, "SKILL.md"),
    `---\nname: one\ndescription: The one skill. Use when testing.\n---\n${body}`,
  );
  writeFileSync(path.join(dir, "references", "guide.md"), "# Guide\n");
  return path.join(dir, "SKILL.md");
}

/** One skill served over HTTP, and a client of each protocol era: legacy takes the fast path, modern the SDK. */
async function serveOne(root: string, options: SkillServerOptions) {
  const skillMd = writeSkill(root, "# first\n");
  const skills = await SkillServer.create(await folderRegistry(root), { watch: false, ...options });
  cleanup.push(() => skills.close());
  const http = await serveHttp(skills, { token: TOKEN, rateLimit: 1_000_000 });
  cleanup.push(() => http.close());
  const clients = await Promise.all([httpClient(http.url, TOKEN, "legacy"), httpClient(http.url, TOKEN, "modern")]);
  for (const c of clients) cleanup.push(c.close);
  return { skills, http, skillMd, clients: clients.map((c) => c.skills) };
}

describe("file bytes read on demand (decision 0381)", () => {
  it("a file changed at its source after the snapshot is refused by name on both eras, never served as the snapshot's; its skill is rebuilt", async () => {
    const { skills, http, skillMd, clients } = await serveOne(path.join(tmp, "changed"), { fileCacheBytes: 0 });
    const [legacy, modern] = clients as [(typeof clients)[0], (typeof clients)[0]];
    const [entry] = (await legacy.list()).skills;
    if (entry === undefined) throw new Error("nothing listed");
    // Same size, other bytes: only the digest tells them apart.
    writeFileSync(skillMd, readFileSync(skillMd, "utf8").replace("# first", "# frist"));
    for (const client of [legacy, modern]) {
      const error = await client.read(entry).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(SkillVerificationError);
      expect(String(error)).toContain(`${entry.uri} changed at its source since the snapshot was taken`);
    }
    // The other file is unchanged: still served under the same version.
    expect((await legacy.read(entry, "references/guide.md")).text).toBe("# Guide\n");
    // The refused read asked for the skill to be rebuilt; a refresh queued after it sees the rebuilt snapshot.
    await skills.refresh([]);
    const [rebuilt] = (await modern.list()).skills;
    expect(rebuilt?.uri).not.toBe(entry.uri);
    if (rebuilt === undefined) throw new Error("nothing listed");
    expect((await legacy.read(rebuilt)).body).toBe("# frist\n");
    expect(http.answered.fast).toBeGreaterThan(0);
  });

  it("a hot file stays readable under its version after its source changed (cached by digest); with no cache it is refused", async () => {
    for (const [fileCacheBytes, served] of [
      [undefined, true],
      [0, false],
    ] as const) {
      const root = path.join(tmp, `hot-${String(fileCacheBytes)}`);
      const { clients } = await serveOne(root, fileCacheBytes === undefined ? {} : { fileCacheBytes });
      const modern = clients[1] as (typeof clients)[0];
      const [entry] = (await modern.list()).skills;
      if (entry === undefined) throw new Error("nothing listed");
      expect((await modern.read(entry)).body).toBe("# first\n");
      writeSkill(root, "# second, longer\n");
      const again = await modern.read(entry).then(
        (file) => file.body,
        (e: unknown) => String(e),
      );
      if (served) expect(again).toBe("# first\n");
      else expect(again).toContain("changed at its source");
    }
  });

  it("reads of one file at once share one read; the cache holds at most its budget; a read is verified", async () => {
    const contents = new Map([
      ["a.md", new TextEncoder().encode("aaaa")],
      ["b.md", new TextEncoder().encode("bbbb")],
      ["c.md", new TextEncoder().encode("cccc")],
    ]);
    const reads: string[] = [];
    const skill = {
      readFile: async (p: string) => {
        reads.push(p);
        await new Promise((r) => setTimeout(r, 5));
        return contents.get(p) as Uint8Array;
      },
    } as unknown as ServedSkill;
    const fileOf = (p: string, digestOf = contents.get(p) as Uint8Array): ServedFile => ({
      uri: `skill://v/one/${p}`,
      path: p,
      size: 4,
      digest: sha256Digest(digestOf),
      mimeType: "text/markdown",
      isText: true,
    });
    const files = new FileBytes(10);
    const [x, y] = await Promise.all([files.read(skill, fileOf("a.md")), files.read(skill, fileOf("a.md"))]);
    expect(reads).toEqual(["a.md"]);
    expect(x).toBe(y);
    await files.read(skill, fileOf("b.md"));
    await files.read(skill, fileOf("c.md"));
    expect(files.heldBytes).toBe(8);
    await files.read(skill, fileOf("a.md"));
    expect(reads).toEqual(["a.md", "b.md", "c.md", "a.md"]);
    const wrong = fileOf("b.md", new TextEncoder().encode("BBBB"));
    await expect(files.read(skill, wrong)).rejects.toBeInstanceOf(FileChangedError);
  });
});
