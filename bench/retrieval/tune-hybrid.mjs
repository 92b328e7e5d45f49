// Chooses the embeddings hybrid's settings on the TRAIN half: which text of a skill is embedded, the RRF constant k
// and the weight of the embeddings ranking, fixed or gated by BM25F's top confidence ("gate": weight × (1 − it)).
// Prints train figures; `--split test` needs --only and prints the held-out half for those settings alone (report
// once, after choosing).
//
//   node bench/retrieval/embeddings-server.mjs --port 18080 &
//   node bench/retrieval/tune-hybrid.mjs --corpus /tmp/retrieval-corpus --embeddings-url http://127.0.0.1:18080/v1
//       [--embeddings-model use] [--split train|test] [--only '{"text":"card","k":20,"weight":0.5,"gate":true}' or an array of them]
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadCorpus } from "./evaluate.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const core = (file) => path.join(here, "..", "..", "packages", "core", "dist", file);
const { SkillSearchIndex } = await import(core("index.js"));
const { EmbeddingsClient, isHiddenFromModel, skillEmbeddingText } = await import(core("internal.js"));

const args = { split: "train", model: undefined, url: undefined, corpus: undefined, only: undefined };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === "--corpus") args.corpus = process.argv[++i];
  else if (a === "--embeddings-url") args.url = process.argv[++i];
  else if (a === "--embeddings-model") args.model = process.argv[++i];
  else if (a === "--split") args.split = process.argv[++i];
  else if (a === "--only") args.only = JSON.parse(process.argv[++i]);
  else throw new Error(`unexpected argument ${a}`);
}
if (!args.corpus || !args.url) throw new Error("--corpus DIR and --embeddings-url URL are required");
if (args.split !== "train" && !args.only)
  throw new Error("the held-out half is for the chosen settings only: give them with --only");

// BM25F indexes every skill (as evaluate.mjs and the CLI do); only model-visible ones are embedded.
const corpus = await loadCorpus(path.resolve(args.corpus));
const skills = corpus.filter((s) => !isHiddenFromModel(s.metadata));
const { queries: all } = JSON.parse(readFileSync(path.join(here, "queries.json"), "utf8"));
const queries = all.filter((q) => q.split === args.split && q.kind !== "none");
const index = new SkillSearchIndex(corpus);
const client = new EmbeddingsClient({ url: args.url, model: args.model, timeoutMs: 600_000 });

// What of a skill the embedder reads.
const TEXTS = {
  // name: description — what the hybrid embedded before decision 0208
  short: (s) => `${s.metadata.name ?? s.id}: ${s.metadata.description ?? ""}`,
  // the product's skillEmbeddingText: name, description, when_to_use and triggers/tags
  card: (s) => skillEmbeddingText({ id: s.id, metadata: s.metadata }),
  // the same plus the body's headings
  headings: (s) => skillEmbeddingText({ id: s.id, metadata: s.metadata, body: s.body }, { headings: true }),
};

const cosine = (a, b) =>
  a.reduce((s, x, i) => s + x * b[i], 0) /
  Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0) || 1);

async function embeddingRankings(textOf) {
  const vectors = await client.embed(skills.map(textOf));
  const queryVectors = await client.embed(queries.map((q) => q.query));
  return queries.map((q, i) =>
    skills
      .map((s, j) => ({ id: s.id, sim: cosine(queryVectors[i], vectors[j]) }))
      .sort((a, b) => b.sim - a.sim || (a.id < b.id ? -1 : 1))
      .map((x) => x.id),
  );
}

function fuse(lists, weights, k, depth) {
  const scores = new Map();
  lists.forEach((list, l) =>
    list.slice(0, depth).forEach((id, r) => scores.set(id, (scores.get(id) ?? 0) + weights[l] / (k + r + 1))),
  );
  return [...scores].sort((a, b) => b[1] - a[1]).map(([id]) => id);
}

function measure(rankings) {
  let r1 = 0,
    r3 = 0,
    r5 = 0,
    mrr = 0;
  queries.forEach((q, i) => {
    const rel = new Set(q.relevant);
    const at = rankings[i].findIndex((id) => rel.has(id));
    if (at === 0) r1++;
    if (at >= 0 && at < 3) r3++;
    if (at >= 0 && at < 5) r5++;
    if (at >= 0) mrr += 1 / (at + 1);
  });
  const n = queries.length;
  return [r1, r3, r5, mrr].map((x) => (x / n).toFixed(3)).join(" / ");
}

const bm25Hits = queries.map((q) => index.search(q.query, { limit: 50 }));
const bm25 = bm25Hits.map((hits) => hits.map((h) => h.id));
console.log(
  `${args.split}: ${queries.length} queries with a fit, ${skills.length} model-visible skills; R@1 / R@3 / R@5 / MRR`,
);
console.log(`BM25F alone: ${measure(bm25)}`);
const grid = args.only
  ? [args.only].flat()
  : [
      ...Object.keys(TEXTS).flatMap((text) =>
        [60, 20, 10].flatMap((k) => [1, 0.75, 0.5, 0.35, 0.25].map((weight) => ({ text, k, weight }))),
      ),
      // The embeddings' weight shrinks as BM25F's top hit grows more confident: weight × (1 − top confidence).
      ...["card"].flatMap((text) =>
        [60, 20, 10].flatMap((k) => [0.5, 1, 1.5, 2, 3].map((weight) => ({ text, k, weight, gate: true }))),
      ),
    ];
const embedded = new Map();
for (const g of grid) {
  if (!embedded.has(g.text)) {
    embedded.set(g.text, await embeddingRankings(TEXTS[g.text]));
    console.log(`embeddings alone, text ${g.text}: ${measure(embedded.get(g.text))}`);
  }
  const rankings = queries.map((_, i) => {
    const weight = g.gate ? g.weight * (1 - (bm25Hits[i][0]?.confidence ?? 0)) : g.weight;
    return fuse([bm25[i], embedded.get(g.text)[i]], [1, weight], g.k, g.depth ?? 50);
  });
  console.log(`${JSON.stringify(g)}: ${measure(rankings)}`);
}
