import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient, type Skill } from "@modelcontextprotocol/client/ext/skills";
import { SkillRegistry } from "@skillport/core";
import { LocalFileSystemSkillProvider } from "@skillport/fs";

/** A registry over one folder of skills, unwatched (tests call refresh themselves). */
export async function folderRegistry(root: string): Promise<SkillRegistry> {
  const registry = new SkillRegistry();
  await registry.addProvider(new LocalFileSystemSkillProvider(root, { name: "fs:test" }), { watch: false });
  return registry;
}

/** An SDK client connected over Streamable HTTP, with the bearer token when given. */
export async function httpClient(url: string, token?: string): Promise<{ client: Client; skills: SkillsClient; close(): Promise<void> }> {
  const client = new Client({ name: "skillport-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return { client, skills: new SkillsClient(client), close: () => client.close() };
}

/** Reads every file of every listed skill through the SDK's verifying client; returns how many files were verified. */
export async function readEverything(skills: SkillsClient, entries: readonly Skill[]): Promise<number> {
  let verified = 0;
  for (const entry of entries) {
    if (entry.resources === "dynamic") throw new Error(`${entry.uri} is dynamic`);
    for (const resource of entry.resources) {
      const file = await skills.read(entry, resource.uri);
      if (!file.verified) throw new Error(`${resource.uri} not verified`);
      verified++;
    }
  }
  return verified;
}
