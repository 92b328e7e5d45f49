import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient, type Skill } from "@modelcontextprotocol/client/ext/skills";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { SkillRegistry } from "@skillport/core";
import { LocalFileSystemSkillProvider } from "@skillport/fs";

/** A registry over one folder of skills, unwatched (tests call refresh themselves). */
export async function folderRegistry(root: string): Promise<SkillRegistry> {
  const registry = new SkillRegistry();
  await registry.addProvider(new LocalFileSystemSkillProvider(root, { name: "fs:test" }), { watch: false });
  return registry;
}

/** An SDK client connected over Streamable HTTP, with the bearer token when given. */
export async function httpClient(
  url: string,
  token?: string,
  era: "legacy" | "modern" = "legacy",
): Promise<{ client: Client; skills: SkillsClient; close(): Promise<void> }> {
  const client = new Client(
    { name: "skillport-test", version: "1.0.0" },
    { versionNegotiation: { mode: era === "modern" ? "auto" : "legacy" } },
  );
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } },
  );
  await client.connect(transport);
  return { client, skills: new SkillsClient(client), close: () => client.close() };
}

/**
 * Reads every file of every listed skill through the SDK's verifying client (`concurrency` reads in flight); returns
 * how many files were verified. Any verification failure rejects.
 */
export async function readEverything(
  skills: SkillsClient,
  entries: readonly Skill[],
  concurrency = 1,
): Promise<number> {
  const work: Array<{ entry: Skill; uri: string }> = [];
  for (const entry of entries) {
    if (entry.resources === "dynamic") throw new Error(`${entry.uri} is dynamic`);
    for (const resource of entry.resources) work.push({ entry, uri: resource.uri });
  }
  let next = 0;
  let verified = 0;
  const worker = async () => {
    while (next < work.length) {
      const { entry, uri } = work[next++] as { entry: Skill; uri: string };
      const file = await skills.read(entry, uri);
      if (!file.verified) throw new Error(`${uri} not verified`);
      verified++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return verified;
}

/** Writes `count` generated skills (SKILL.md + a reference + a small binary asset each) into `root`. */
export function generateCorpus(root: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(5, "0")}`;
    const dir = path.join(root, name);
    mkdirSync(path.join(dir, "references"), { recursive: true });
    mkdirSync(path.join(dir, "assets"), { recursive: true });
    writeFileSync(
      path.join(dir, "SKILL.md"),
      `---\nname: ${name}\ndescription: Generated skill ${i} for tests. Use when the task mentions topic ${i % 97}.\n---\n# ${name}\n\nRead references/guide.md first.\n`,
    );
    writeFileSync(path.join(dir, "references", "guide.md"), `# Guide ${i}\n\n${"Step by step. ".repeat(20)}\n`);
    writeFileSync(path.join(dir, "assets", "data.bin"), Buffer.from([0, 1, 2, 3, i % 256, 0xff, 0xfe]));
  }
}
