import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddingsClient, EmbeddingsError, fuseWithEmbeddings, reciprocalRankFusion } from "./hybrid.js";
import { SkillSearchIndex } from "./index.js";

// A fake embeddings model speaking the OpenAI protocol: hashed bag of words (64 dims), so "texts sharing words are
// close" holds deterministically and synonyms the test declares share a bucket.
const SYNONYMS: Record<string, string> = {
  malware: "compromised",
  poisoned: "compromised",
  package: "dependency",
  reported: "audit",
  we: "your",
};
function fakeVector(text: string): number[] {
  const v = new Array<number>(64).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const word = SYNONYMS[raw] ?? raw;
    const bucket = createHash("sha256").update(word).digest()[0] as number;
    v[bucket % 64] = (v[bucket % 64] as number) + 1;
  }
  return v;
}

type Handler = (req: IncomingMessage, body: { model?: string; input?: string[] }, res: ServerResponse) => void;
const servers: Server[] = [];
const requests: Array<{ auth: string | undefined; input: string[] }> = [];

async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const body = JSON.parse(raw) as { model?: string; input?: string[] };
      requests.push({ auth: req.headers.authorization, input: body.input ?? [] });
      if (req.method !== "POST" || req.url !== "/v1/embeddings") {
        res.writeHead(404).end();
        return;
      }
      handler(req, body, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const honest: Handler = (_req, body, res) => {
  const data = (body.input ?? []).map((text, index) => ({ object: "embedding", index, embedding: fakeVector(text) }));
  res
    .writeHead(200, { "content-type": "application/json" })
    .end(JSON.stringify({ object: "list", data, model: body.model }));
};

afterEach(async () => {
  requests.length = 0;
  await Promise.all(
    servers.splice(0).map((s) => new Promise((resolve) => s.closeAllConnections() ?? s.close(resolve))),
  );
});

const SKILLS = [
  { id: "supply-chain-auditor", description: "Audit a compromised dependency in your supply chain." },
  { id: "yara-rules", description: "Write YARA rules that detect malware samples in files." },
  { id: "pdf", description: "Merge, split and fill PDF files." },
  { id: "sql-review", description: "Review SQL queries for injection." },
];
const index = new SkillSearchIndex(SKILLS);
const texts = SKILLS.map((s) => ({ id: s.id, text: `${s.id}: ${s.description}` }));

describe("reciprocalRankFusion", () => {
  it.each([
    {
      lists: [
        ["a", "b", "c"],
        ["c", "b", "a"],
      ],
      want: ["a", "c", "b"],
    }, // a, c: 1/61+1/63 > b: 2/62; ties keep first-seen order
    {
      lists: [
        ["a", "b"],
        ["b", "c"],
      ],
      want: ["b", "a", "c"],
    },
    { lists: [["a"], []], want: ["a"] },
    { lists: [[], []], want: [] },
  ])("fuses $lists into $want", ({ lists, want }) => {
    expect(reciprocalRankFusion(lists).map((h) => h.id)).toEqual(want);
  });

  it("gives 1/(k+rank) per list", () => {
    const [top] = reciprocalRankFusion([["a"], ["a"]], 10);
    expect(top?.score).toBeCloseTo(2 / 11);
  });

  it("weighs each list: a lighter list breaks near-ties but cannot overturn a clear lead", () => {
    // Equal weights: b (1/12 + 1/11) beats a (1/11 + 1/13). Half weight on the second list: a 1/11 + 0.5/13 > b 1/12 + 0.5/11.
    expect(
      reciprocalRankFusion(
        [
          ["a", "b"],
          ["b", "c", "a"],
        ],
        10,
      ).map((h) => h.id),
    ).toEqual(["b", "a", "c"]);
    const weighted = reciprocalRankFusion(
      [
        ["a", "b"],
        ["b", "c", "a"],
      ],
      10,
      [1, 0.5],
    );
    expect(weighted.map((h) => h.id)).toEqual(["a", "b", "c"]);
    expect(weighted[0]?.score).toBeCloseTo(1 / 11 + 0.5 / 13);
    expect(reciprocalRankFusion([["a"], ["b"]], 10, [1, 0]).map((h) => [h.id, h.score])).toEqual([
      ["a", 1 / 11],
      ["b", 0],
    ]);
  });
});

describe("fuseWithEmbeddings against a local OpenAI-compatible server", () => {
  it("brings in a skill BM25 cannot find, ranked by summed reciprocal ranks (fusion order)", async () => {
    const url = await serve(honest);
    const query = "a package we use was reported to contain malware";
    const bm25 = index.search(query, { limit: 50 });
    expect(bm25[0]?.id).toBe("yara-rules"); // lexical match on "malware"
    const { hits, warning } = await fuseWithEmbeddings(
      new EmbeddingsClient({ url, apiKey: "sk-test-secret" }),
      query,
      bm25,
      texts,
      { limit: 3, k: 60, weight: 1, confidenceGate: false },
    );
    expect(warning).toBeUndefined();
    expect(bm25.map((h) => h.id)).not.toContain("supply-chain-auditor"); // no word in common
    // yara-rules: 1/61 (BM25) + 1/62 (embeddings, 2nd); supply-chain-auditor: 1/61 (embeddings, 1st) only.
    expect(hits.map((h) => [h.id, h.embeddingRank])).toEqual([
      ["yara-rules", 2],
      ["supply-chain-auditor", 1],
      [expect.any(String), 3],
    ]);
    expect(hits[1]).toMatchObject({ confidence: 0, score: 0, matched: [] });
    expect(requests[0]?.auth).toBe("Bearer sk-test-secret");
  });

  // BM25's order [sql-review, supply-chain-auditor]; the embeddings put supply-chain-auditor 1st and sql-review 4th.
  const hit = (id: string, confidence: number) => ({ id, score: 1, confidence, matched: [] });
  it.each([
    { confidence: 0.99, want: ["sql-review", "supply-chain-auditor"] }, // weight 0.5 × 0.01: embeddings only break ties
    { confidence: 0, want: ["supply-chain-auditor", "sql-review"] }, // 1/22 + 0.5/21 > 1/21 + 0.5/24
  ])(
    "gates the embeddings by BM25's top confidence ($confidence): defaults k 20, weight 0.5",
    async ({ confidence, want }) => {
      const url = await serve(honest);
      const query = "a package we use was reported to contain malware";
      const { hits } = await fuseWithEmbeddings(
        new EmbeddingsClient({ url }),
        query,
        [hit("sql-review", confidence), hit("supply-chain-auditor", 0)],
        texts,
        { limit: 2 },
      );
      expect(hits.map((h) => h.id)).toEqual(want);
      // With the gate off, full weight even behind a confident top hit.
      const ungated = await fuseWithEmbeddings(
        new EmbeddingsClient({ url }),
        query,
        [hit("sql-review", 0.99), hit("supply-chain-auditor", 0)],
        texts,
        { limit: 2, weight: 1, confidenceGate: false },
      );
      expect(ungated.hits.map((h) => h.id)).toEqual(["supply-chain-auditor", "sql-review"]);
    },
  );

  it("reuses known vectors: a second query embeds only the query", async () => {
    const url = await serve(honest);
    const vectors = new Map<string, number[]>();
    const client = new EmbeddingsClient({ url });
    await fuseWithEmbeddings(client, "merge pdf", index.search("merge pdf"), texts, { vectors });
    expect(vectors.size).toBe(SKILLS.length);
    await fuseWithEmbeddings(client, "split pdf", index.search("split pdf"), texts, { vectors });
    expect(requests.map((r) => r.input.length)).toEqual([SKILLS.length + 1, 1]);
  });

  it("keeps BM25's abstention: nothing when BM25 abstained, without calling the endpoint", async () => {
    const url = await serve(honest);
    const { hits } = await fuseWithEmbeddings(new EmbeddingsClient({ url }), "bake bread", [], texts, {
      abstained: true,
    });
    expect(hits).toEqual([]);
    expect(requests).toEqual([]);
  });

  it("endpoint down: BM25's hits, with a warning that names the endpoint and not the key", async () => {
    const url = await serve(honest);
    const server = servers.pop() as Server;
    await new Promise((resolve) => server.close(resolve));
    const bm25 = index.search("merge pdf files");
    const { hits, warning } = await fuseWithEmbeddings(
      new EmbeddingsClient({ url, apiKey: "sk-never-shown" }),
      "merge pdf files",
      bm25,
      texts,
      { limit: 2 },
    );
    expect(hits).toEqual(bm25.slice(0, 2));
    expect(warning).toMatch(/unreachable.*BM25/);
    expect(warning).toContain("127.0.0.1");
    expect(warning).not.toContain("sk-never-shown");
  });

  it("a slow endpoint: the batches that arrived are kept, and the next search embeds only the rest", async () => {
    let answered = 0;
    const slow = await serve((req, body, res) => {
      if (answered++ === 0) honest(req, body, res); // then never answers again
    });
    const vectors = new Map<string, number[]>();
    const cut = await fuseWithEmbeddings(
      new EmbeddingsClient({ url: slow, batchSize: 2, timeoutMs: 200 }),
      "merge pdf",
      index.search("merge pdf"),
      texts,
      { vectors },
    );
    expect(cut.warning).toMatch(
      /did not answer within 200 ms \(1 of 4 skills embedded so far, kept for the next search\); showing keyword/,
    );
    expect([...vectors.keys()]).toEqual([`text-embedding-3-small\0${texts[0]?.text}`]); // [query, first skill] arrived
    expect(vectors.get(`text-embedding-3-small\0${texts[0]?.text}`)).toEqual(fakeVector(texts[0]?.text ?? ""));
    requests.length = 0;
    const url = await serve(honest);
    const { warning } = await fuseWithEmbeddings(
      new EmbeddingsClient({ url, batchSize: 2 }),
      "merge pdf",
      index.search("merge pdf"),
      texts,
      { vectors },
    );
    expect(warning).toBeUndefined();
    expect(requests.map((r) => r.input)).toEqual([
      ["merge pdf", texts[1]?.text],
      [texts[2]?.text, texts[3]?.text],
    ]);
    expect(vectors.size).toBe(4);
  });

  it("timeout: gives up after timeoutMs and falls back to BM25", async () => {
    const url = await serve(() => undefined); // never answers
    const bm25 = index.search("merge pdf files");
    const { hits, warning } = await fuseWithEmbeddings(
      new EmbeddingsClient({ url, timeoutMs: 200 }),
      "merge pdf files",
      bm25,
      texts,
    );
    expect(hits).toEqual(bm25);
    expect(warning).toMatch(/did not answer within 200 ms/);
  });

  const answer =
    (status: number, body: string): Handler =>
    (_req, _body, res) =>
      res.writeHead(status, { "content-type": "application/json" }).end(body);
  it.each([
    { name: "HTTP error", handler: answer(500, "{}"), want: /HTTP 500/ },
    { name: "not JSON", handler: answer(200, "<html>"), want: /not JSON/ },
    { name: "no data", handler: answer(200, '{"object":"list"}'), want: /expected data with/ },
    {
      name: "too few items",
      handler: answer(200, '{"data":[{"index":0,"embedding":[1,2]}]}'),
      want: /expected data with/,
    },
    {
      name: "strings for numbers",
      handler: (_req, body, res) =>
        res
          .writeHead(200)
          .end(JSON.stringify({ data: (body.input ?? []).map((_, index) => ({ index, embedding: ["1", "2"] })) })),
      want: /no numeric embedding/,
    },
    {
      name: "ragged vectors",
      handler: (_req, body, res) =>
        res.writeHead(200).end(
          JSON.stringify({
            data: (body.input ?? []).map((_, index) => ({ index, embedding: new Array(index + 1).fill(1) })),
          }),
        ),
      want: /different lengths/,
    },
    {
      name: "duplicate index",
      handler: (_req, body, res) =>
        res.writeHead(200).end(JSON.stringify({ data: (body.input ?? []).map(() => ({ index: 0, embedding: [1] })) })),
      want: /bad index/,
    },
  ])("bad response shape ($name): BM25 only, with a warning", async ({ handler, want }) => {
    const url = await serve(handler);
    const bm25 = index.search("review sql");
    const { hits, warning } = await fuseWithEmbeddings(new EmbeddingsClient({ url }), "review sql", bm25, texts);
    expect(hits).toEqual(bm25);
    expect(warning).toMatch(want);
  });
});

describe("EmbeddingsClient", () => {
  it.each(["not a url", "ftp://host/v1", "http://user:pw@127.0.0.1/v1"])("refuses %s", (url) => {
    expect(() => new EmbeddingsClient({ url })).toThrow(EmbeddingsError);
  });

  it("sends at most 16 texts per request by default", async () => {
    const url = await serve(honest);
    await new EmbeddingsClient({ url }).embed(Array.from({ length: 20 }, (_, i) => `text ${i}`));
    expect(requests.map((r) => r.input.length)).toEqual([16, 4]);
  });

  it("batches long inputs and keeps their order", async () => {
    const url = await serve(honest);
    const inputs = Array.from({ length: 5 }, (_, i) => `text ${"word ".repeat(i)}`);
    const vectors = await new EmbeddingsClient({ url, batchSize: 2 }).embed(inputs);
    expect(vectors).toEqual(inputs.map(fakeVector));
    expect(requests.map((r) => r.input.length)).toEqual([2, 2, 1]);
  });
});
