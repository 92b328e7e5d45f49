import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();
const servers: Server[] = [];
const seen: Array<{ auth: string | undefined; inputs: number }> = [];

// Deterministic fake model: one dimension per letter a–z, counted. Enough to rank "spreadsheet" texts together.
function vector(text: string): number[] {
  const v = new Array<number>(26).fill(0);
  for (const ch of text.toLowerCase())
    if (ch >= "a" && ch <= "z") v[ch.charCodeAt(0) - 97] = (v[ch.charCodeAt(0) - 97] as number) + 1;
  return v;
}

/** `refuse()` true: that request gets HTTP 500. */
async function embeddingsServer(refuse: () => boolean = () => false): Promise<string> {
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const { input } = JSON.parse(raw) as { input: string[] };
      seen.push({ auth: req.headers.authorization, inputs: input.length });
      if (refuse()) {
        res.writeHead(500).end();
        return;
      }
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: vector(t) })) }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const saved = { url: process.env.SKILLPORT_EMBEDDINGS_URL, key: process.env.SKILLPORT_EMBEDDINGS_API_KEY };
afterEach(async () => {
  seen.length = 0;
  for (const [name, value] of [
    ["SKILLPORT_EMBEDDINGS_URL", saved.url],
    ["SKILLPORT_EMBEDDINGS_API_KEY", saved.key],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const skills = {
  "s/csv/SKILL.md": skillMd("csv", "Summarise CSV spreadsheets. Use when the user shares a .csv export."),
  "s/pdf/SKILL.md": skillMd("pdf", "Merge and split PDF files."),
  "s/deploy/SKILL.md": skillMd("deploy", "Deploy the service to production."),
};

describe("skillport search with an embeddings endpoint", () => {
  it("--embeddings-url fuses the endpoint's ranking with BM25; the key goes in the header and nowhere else", async () => {
    const dir = await tree(skills);
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), "skillport-hybrid-cache-"));
    try {
      const url = await embeddingsServer();
      process.env.SKILLPORT_EMBEDDINGS_API_KEY = "sk-cli-secret";
      const args = ["search", "csv spreadsheet", "s", "--json", "--embeddings-url", url, "--cache-dir", cacheDir];
      const run = await runInProcess(args, dir);
      expect(run.code).toBe(0);
      const out = JSON.parse(run.stdout);
      expect(out.hybrid).toBe(true);
      expect(out.warning).toBeUndefined();
      expect(out.results[0]).toMatchObject({ id: "csv", embeddingRank: expect.any(Number) });
      expect(run.stdout + run.stderr).not.toContain("sk-cli-secret");
      expect(seen[0]).toEqual({ auth: "Bearer sk-cli-secret", inputs: 4 }); // the query + three skills
      expect((await readdir(cacheDir)).some((f) => f.startsWith("embeddings-"))).toBe(true);
      // The skills' vectors are cached: the second run embeds only the query.
      await runInProcess(args, dir);
      expect(seen[1]?.inputs).toBe(1);
      // A damaged vectors file (decision 0321): said in the warning, every skill embedded again, the file rewritten.
      const vectorsFile = path.join(cacheDir, (await readdir(cacheDir)).find((f) => f.startsWith("embeddings-")) ?? "");
      await writeFile(vectorsFile, JSON.stringify({ format: 1, vectors: { k: ["not a number"] } }));
      const damaged = JSON.parse((await runInProcess(args, dir)).stdout);
      expect(damaged.warning).toMatch(
        /embeddings cache .* is not the expected shape: at vectors\.k\.0, expected number; rebuilding it/,
      );
      expect(seen[2]?.inputs).toBe(4);
      expect(JSON.parse((await runInProcess(args, dir)).stdout).warning).toBeUndefined();
      expect(seen[3]?.inputs).toBe(1);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  it("SKILLPORT_EMBEDDINGS_URL turns it on; an endpoint that is down leaves BM25's answer and a warning on stderr", async () => {
    const dir = await tree(skills);
    const url = await embeddingsServer();
    await new Promise((resolve) => (servers.pop() as Server).close(resolve));
    process.env.SKILLPORT_EMBEDDINGS_URL = url;
    process.env.SKILLPORT_EMBEDDINGS_API_KEY = "sk-cli-secret";
    const run = await runInProcess(["search", "csv spreadsheet", "s", "--no-cache"], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^csv /);
    expect(run.stderr).toMatch(/warning: embeddings endpoint .* unreachable.*BM25/);
    expect(run.stderr).not.toContain("sk-cli-secret");
    const json = JSON.parse(
      (await runInProcess(["search", "csv spreadsheet", "s", "--no-cache", "--json"], dir)).stdout,
    );
    expect(json.warning).toMatch(/unreachable/);
    expect(json.results.map((r: { id: string }) => r.id)).toEqual(["csv"]);
  });

  it("an endpoint that fails part-way: the skills embedded so far are cached, and the next run embeds only the rest", async () => {
    const many = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`s/skill-${i}/SKILL.md`, skillMd(`skill-${i}`)]),
    );
    const dir = await tree(many);
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), "skillport-hybrid-cache-"));
    try {
      let down = false; // the same endpoint (vectors are cached per URL and model), failing after its first answer
      const url = await embeddingsServer(() => {
        const refused = down;
        down = true;
        return refused;
      });
      const args = ["search", "skill things", "s", "--json", "--embeddings-url", url, "--cache-dir", cacheDir];
      const first = JSON.parse((await runInProcess(args, dir)).stdout);
      expect(first.warning).toMatch(/HTTP 500 \(15 of 20 skills embedded so far, kept for the next search\)/);
      expect(seen.map((s) => s.inputs)).toEqual([16, 5]); // batches of 16: the query + 15 skills, then the other 5 (refused)
      seen.length = 0;
      down = false;
      const second = JSON.parse((await runInProcess(args, dir)).stdout);
      expect(second.warning).toBeUndefined();
      expect(seen.map((s) => s.inputs)).toEqual([6]); // the query + the 5 skills the first run did not get
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  it("abstains only when asked: by default the endpoint ranks what no keyword found (decision 0265)", async () => {
    const dir = await tree(skills);
    const url = await embeddingsServer();
    const args = ["search", "zebra", "s", "--json", "--no-cache", "--embeddings-url", url];
    const shown = JSON.parse((await runInProcess(args, dir)).stdout);
    expect(shown.results.length).toBeGreaterThan(0);
    for (const hit of shown.results) expect(hit).toMatchObject({ confidence: 0, embeddingRank: expect.any(Number) });
    const calls = seen.length;
    const asked = JSON.parse((await runInProcess([...args, "--min-confidence", "0.3"], dir)).stdout);
    expect(asked.results).toEqual([]);
    expect(seen.length).toBe(calls); // the endpoint is not called when BM25F abstains
  });

  it("off by default: no endpoint, no hybrid field", async () => {
    const dir = await tree(skills);
    delete process.env.SKILLPORT_EMBEDDINGS_URL;
    const out = JSON.parse(
      (await runInProcess(["search", "csv spreadsheet", "s", "--json", "--no-cache"], dir)).stdout,
    );
    expect(out.hybrid).toBeUndefined();
    expect(out.results[0].embeddingRank).toBeUndefined();
  });
});
