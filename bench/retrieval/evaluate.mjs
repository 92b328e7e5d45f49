// Retrieval evaluation on real public skills: Skillport's search beside plain BM25, per query kind.
//
//   node bench/retrieval/make-corpus.mjs --out /tmp/retrieval-corpus owner/name=CHECKOUT …   (once)
//   node bench/retrieval/evaluate.mjs --corpus /tmp/retrieval-corpus [--split test|train|both|all] [--json]
//   node bench/retrieval/evaluate.mjs --set copilot --corpus /tmp/copilot-corpus --split all   (another labelled set;
//       its queries have no split: use --split all. The "heldout" set is for reporting only: see calibrate.mjs)
//   node bench/retrieval/evaluate.mjs --corpus … --embeddings-url http://127.0.0.1:8080/v1 [--embeddings-model M]
//       adds a third system: BM25F fused with that endpoint's ranking (the CLI's hybrid: the same texts, the same
//       fuseWithEmbeddings with its defaults; key from $SKILLPORT_EMBEDDINGS_API_KEY). A local CPU model:
//       node bench/retrieval/embeddings-server.mjs --port 8080
//
// The corpus is loaded exactly as `skillport search` loads it (one source per repository, in corpus.json order,
// winners only), so shadowed duplicates and skills hidden from models behave as they do for users.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readSet, sourceRootName } from "./make-corpus.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = (pkg) => path.join(here, "..", "..", "packages", pkg, "dist", "index.js");
const { SkillRegistry, SkillSearchIndex } = await import(dist("core"));
const { DEFAULT_MIN_CONFIDENCE, EmbeddingsClient, fuseWithEmbeddings, isHiddenFromModel, skillEmbeddingText } =
  await import(path.join(here, "..", "..", "packages", "core", "dist", "internal.js"));
const { LocalFileSystemSkillProvider } = await import(dist("fs"));

const KINDS = ["direct", "indirect", "ambiguous", "none"];

function parseArgs(argv) {
  const args = { split: "test", json: false, corpus: undefined, set: "main", minConfidence: DEFAULT_MIN_CONFIDENCE };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--corpus") args.corpus = argv[++i];
    else if (a === "--split") args.split = argv[++i];
    else if (a === "--json") args.json = true;
    else if (a === "--set") args.set = argv[++i];
    else if (a === "--min-confidence") args.minConfidence = Number(argv[++i]);
    else if (a === "--embeddings-url") args.embeddingsUrl = argv[++i];
    else if (a === "--embeddings-model") args.embeddingsModel = argv[++i];
    else throw new Error(`unexpected argument ${a}`);
  }
  if (!args.corpus) throw new Error("--corpus DIR is required (make it with make-corpus.mjs)");
  return args;
}

/** The skills as `skillport search` sees them: winners of a registry over one source per repository. */
export async function loadCorpus(dir, corpus = readSet("main").corpus) {
  const registry = new SkillRegistry();
  for (const source of corpus.sources) {
    const name = sourceRootName(source.repo);
    await registry.addProvider(new LocalFileSystemSkillProvider(path.join(dir, name), { name }), { watch: false });
  }
  const skills = [];
  for (const entry of registry.list())
    skills.push({ id: entry.id, metadata: entry.getMetadata(), body: await entry.getBody() });
  return skills;
}

// ---- plain BM25, as Skillport searched before (decision 0025): name + description + when_to_use + tags ----
const STOP = new Set(
  (
    "a an and are as at be but by can do for from has have how i if in into is it its me my of on or our should so that the their " +
    "then there these this to use used uses using want was we what when which while who will with you your"
  ).split(" "),
);
const plainTokens = (text) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => !STOP.has(t));
function plainText(v) {
  return typeof v === "string" ? v : Array.isArray(v) ? v.map(plainText).join(" ") : "";
}
export function plainBm25(skills) {
  const docs = skills.map((s) => {
    const m = s.metadata;
    const inner = m.metadata && typeof m.metadata === "object" ? m.metadata : {};
    const tokens = plainTokens(
      `${m.name ?? s.id} ${m.description ?? ""} ${plainText(m.when_to_use)} ${plainText(m.tags ?? inner.tags)}`,
    );
    const tf = new Map();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    return {
      id: s.id,
      tf,
      length: tokens.length,
      hidden: m["disable-model-invocation"] === true || m["disable-model-invocation"] === "true",
    };
  });
  const df = new Map();
  for (const d of docs) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length;
  const n = docs.length;
  return {
    search(query, limit) {
      const terms = [...new Set(plainTokens(query))];
      const hits = [];
      for (const d of docs) {
        if (d.hidden) continue;
        let score = 0;
        for (const t of terms) {
          const f = d.tf.get(t);
          if (!f) continue;
          const idf = Math.log(1 + (n - df.get(t) + 0.5) / (df.get(t) + 0.5));
          score += (idf * f * 2.5) / (f + 1.5 * (0.25 + (0.75 * d.length) / avg));
        }
        if (score > 0) hits.push({ id: d.id, score });
      }
      hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
      return hits.slice(0, limit);
    },
  };
}

/** R@k, MRR and abstention for one system's ranked lists. `abstains(q)` says whether the system returned nothing. */
export function score(queries, rank) {
  const rows = {};
  for (const kind of [...KINDS, "all (with a fit)"])
    rows[kind] = { n: 0, r1: 0, r3: 0, r5: 0, mrr: 0, abstained: 0, topRight: 0, topRightKept: 0 };
  for (const q of queries) {
    const { ids, kept } = rank(q);
    const row = rows[q.kind];
    const rows2 = q.kind === "none" ? [row] : [row, rows["all (with a fit)"]];
    for (const r of rows2) {
      r.n++;
      if (q.kind === "none") {
        if (kept.length === 0) r.abstained++;
        continue;
      }
      const relevant = new Set(q.relevant);
      const at = ids.findIndex((id) => relevant.has(id));
      if (at === 0) r.r1++;
      if (at >= 0 && at < 3) r.r3++;
      if (at >= 0 && at < 5) r.r5++;
      if (at >= 0) r.mrr += 1 / (at + 1);
      if (at === 0) {
        r.topRight++;
        if (kept[0] === ids[0]) r.topRightKept++;
      }
      if (kept.length === 0) r.abstained++;
    }
  }
  return rows;
}

function fmt(x) {
  return Number.isFinite(x) ? x.toFixed(2) : "–";
}

function table(title, rows) {
  const lines = [
    `\n${title}`,
    "| kind | n | R@1 | R@3 | R@5 | MRR | abstained | top-right kept |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const [kind, r] of Object.entries(rows)) {
    if (r.n === 0) continue;
    const none = kind === "none";
    lines.push(
      `| ${kind} | ${r.n} | ${none ? "–" : fmt(r.r1 / r.n)} | ${none ? "–" : fmt(r.r3 / r.n)} | ${none ? "–" : fmt(r.r5 / r.n)} | ${none ? "–" : fmt(r.mrr / r.n)} | ${fmt(r.abstained / r.n)} | ${none ? "–" : fmt(r.topRightKept / Math.max(1, r.topRight))} |`,
    );
  }
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const { corpus, queries: all } = readSet(args.set);
  const skills = await loadCorpus(path.resolve(args.corpus), corpus);
  const index = new SkillSearchIndex(skills);
  const plain = plainBm25(skills);
  // A cold CPU model can take longer than the CLI's 10 s for a batch of 64 skills.
  const client =
    args.embeddingsUrl &&
    new EmbeddingsClient({
      url: args.embeddingsUrl,
      model: args.embeddingsModel,
      apiKey: process.env.SKILLPORT_EMBEDDINGS_API_KEY || undefined,
      timeoutMs: 300_000,
    });
  const texts = skills
    .filter((s) => !isHiddenFromModel(s.metadata))
    .map((s) => ({ id: s.id, text: skillEmbeddingText({ id: s.id, metadata: s.metadata }) }));
  const vectors = new Map();
  const results = [];
  for (const split of args.split === "both" ? ["train", "test"] : [args.split]) {
    const queries = all.filter((q) => split === "all" || q.split === split);
    const ours = score(queries, (q) => {
      const ids = index.search(q.query, { limit: 5 }).map((h) => h.id);
      const kept = index.search(q.query, { limit: 5, minConfidence: args.minConfidence }).map((h) => h.id);
      return { ids, kept };
    });
    const baseline = score(queries, (q) => {
      const ids = plain.search(q.query, 5).map((h) => h.id);
      return { ids, kept: ids };
    });
    let hybrid;
    if (client) {
      const ranked = new Map();
      for (const q of queries) {
        const bm25 = index.search(q.query, { limit: 50 });
        // As the CLI: abstention only when asked for (decision 0265).
        const abstained = args.minConfidence > 0 && !bm25.some((h) => h.confidence >= args.minConfidence);
        const fused = await fuseWithEmbeddings(client, q.query, bm25, texts, { limit: 5, vectors });
        if (fused.warning) throw new Error(fused.warning);
        ranked.set(q.id, { ids: fused.hits.map((h) => h.id), kept: abstained ? [] : fused.hits.map((h) => h.id) });
      }
      hybrid = score(queries, (q) => ranked.get(q.id));
    }
    results.push({ split, queries: queries.length, skillport: ours, plainBm25: baseline, ...(hybrid && { hybrid }) });
  }
  if (args.json)
    console.log(
      JSON.stringify({
        skills: skills.length,
        minConfidence: args.minConfidence,
        ...(results.length === 1 ? results[0] : { splits: results }),
      }),
    );
  else {
    console.log(
      `${skills.length} skills, loaded, indexed and searched in ${Math.round(performance.now() - started)} ms`,
    );
    for (const r of results) {
      console.log(`\n## split ${r.split}: ${r.queries} queries`);
      console.log(table(`Skillport search (BM25F + body head), minConfidence ${args.minConfidence}`, r.skillport));
      console.log(table("plain BM25 over name + description + when_to_use + tags (no abstention)", r.plainBm25));
      if (r.hybrid)
        console.log(
          table(
            `hybrid: BM25F fused with ${args.embeddingsUrl}${args.embeddingsModel ? ` (model ${args.embeddingsModel})` : ""} by weighted reciprocal rank fusion (abstention stays BM25F's)`,
            r.hybrid,
          ),
        );
    }
  }
}
