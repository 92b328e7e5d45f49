import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { SkillServer } from "./server.js";
import { serveHttp, type HttpServeHandle } from "./http.js";
import { folderRegistry, httpClient, readEverything } from "./test-support/clients.js";

const examples = fileURLToPath(new URL("../../../examples/skills", import.meta.url));
const TOKEN = "test-token-0123456789abcdef";
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

describe("SkillServer over Streamable HTTP", () => {
  it("serves every example skill; the SDK's verifying client reads every file", async () => {
    const logs: string[] = [];
    const skills = await SkillServer.create(await folderRegistry(examples), { log: (m) => logs.push(m) });
    cleanup.push(() => skills.close());
    const http: HttpServeHandle = await serveHttp(skills, { token: TOKEN });
    cleanup.push(() => http.close());
    const { skills: client, close } = await httpClient(http.url, TOKEN);
    cleanup.push(close);
    expect(client.supported).toBe(true);
    const listing = await client.list();
    console.log(listing.skills.map((s) => s.uri), logs, path.basename(examples));
    expect(listing.skills.length).toBeGreaterThan(0);
    const verified = await readEverything(client, listing.skills);
    expect(verified).toBeGreaterThan(listing.skills.length);
  });
});
