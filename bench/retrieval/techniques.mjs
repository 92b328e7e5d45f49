// Ranking experiments on bench/retrieval: BM25F as SkillSearchIndex scores it (without when_not_to_use), with
// general techniques switched on one at a time — query-term coverage, adjacent-pair (bigram) bonus in the metadata,
// pseudo-relevance feedback, k1 and field weights — reporting R@1/R@3 on the train and test halves side by side.
//   node bench/retrieval/techniques.mjs --corpus DIR [--train-only] '[{"bigram":0.3},{"covExp":0.5}]'
//   BODY_CHARS=8192 node bench/retrieval/techniques.mjs …   (how much of each body is indexed; default 4096)
// docs/search.md ("What did not help") records the figures; decisions are taken on train, test is only reported.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadCorpus } from "./evaluate.mjs";
import { loadWordnet } from "./wordnet.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { analyseSkill, searchTokens, SEARCH_FIELDS, DEFAULT_FIELD_WEIGHTS } = await import(
  path.join(here, "..", "..", "packages", "core", "dist", "internal.js")
);
const at = process.argv.indexOf("--corpus");
if (at < 0) throw new Error("--corpus DIR is required (make it with make-corpus.mjs)");
const skills = await loadCorpus(path.resolve(process.argv[at + 1]));
const { queries } = JSON.parse(readFileSync(path.join(here, "queries.json"), "utf8"));
const bodyChars = Number(process.env.BODY_CHARS ?? "") || undefined;
const docs = skills.map((s) => analyseSkill({ id: s.id, metadata: s.metadata, body: s.body }, { bodyChars }));
const F = SEARCH_FIELDS;
const toks = docs.map((d) => F.map((f) => (d.fields[f] ? d.fields[f].split(" ") : [])));
const N = docs.length;
const avg = F.map((_, f) => toks.reduce((s, t) => s + t[f].length, 0) / N);
const counts = toks.map((t) =>
  t.map((arr) => {
    const m = new Map();
    for (const x of arr) m.set(x, (m.get(x) ?? 0) + 1);
    return m;
  }),
);
const df = new Map();
for (const c of counts) {
  const seen = new Set();
  for (const m of c) for (const k of m.keys()) seen.add(k);
  for (const k of seen) df.set(k, (df.get(k) ?? 0) + 1);
}
const idf = (t) => Math.log(1 + (N - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
const joined = toks.map((t) => t.map((a) => ` ${a.join(" ")} `));
function tfOf(i, term, W) {
  let tf = 0;
  for (let f = 0; f < F.length; f++) {
    const c = counts[i][f].get(term);
    if (!c) continue;
    const { weight, b } = W[F[f]];
    tf += (weight * c) / (1 - b + (b * toks[i][f].length) / avg[f]);
  }
  return tf;
}
// A fuller English stopword list (function words of the usual IR lists), stemmed like the index's terms.
const MORE_STOP = new Set(
  searchTokens(
    "about above after again against all am any because been before being below between both cannot could did doing down during each few further had having he her here hers herself him himself his just more most no nor not now off once only other ought ours ourselves out over own same she some such than theirs them themselves those through too under until up very were whom why would yours yourself yourselves can't don't won't isn't every also get got started tell",
  ),
);
// The first n terms of the description (its lead sentence, roughly), counted as one more field.
const leadCount = (i, t, n) => {
  let c = 0;
  const d = toks[i][1];
  for (let j = 0; j < Math.min(n, d.length); j++) if (d[j] === t) c++;
  return c;
};
const leadAvg = new Map();
const avgLead = (n) => {
  if (!leadAvg.has(n)) leadAvg.set(n, toks.reduce((s, t) => s + Math.min(n, t[1].length), 0) / N || 1);
  return leadAvg.get(n);
};
// Query terms no skill contains, replaced by the corpus terms that share their first `prefix` characters.
const vocabulary = [...df.keys()];
function prefixFallback(terms, P) {
  if (!(P.prefix > 0)) return terms;
  return terms.flatMap(([t, w]) => {
    if (df.has(t) || t.length < P.prefix + 1) return [[t, w]];
    const stem = t.slice(0, P.prefix);
    return vocabulary.filter((v) => v.startsWith(stem)).map((v) => [v, w * P.prefixWeight]);
  });
}
// WordNet expansion: each query word's synonyms (and optionally hypernyms or the gloss) as extra terms of weight
// P.wn.weight, kept only when some skill contains them (wordnet.mjs; bench only).
let wordnet;
function wordnetExpansion(query, terms, P) {
  if (!P.wn) return terms;
  wordnet ??= loadWordnet();
  const have = new Set(terms.map(([t]) => t));
  const added = new Map();
  for (const word of query.toLowerCase().match(/[a-z]+/g) ?? []) {
    const own = searchTokens(word);
    if (!own.length) continue; // a stopword
    if (P.wn.maxDf !== undefined && own.some((t) => (df.get(t) ?? 0) > P.wn.maxDf)) continue; // expand only rare or unknown words
    for (const phrase of wordnet.related(word, P.wn)) {
      for (const t of searchTokens(phrase)) if (!have.has(t) && df.has(t)) added.set(t, P.wn.weight);
    }
  }
  return [...terms, ...added];
}
function rank(query, P) {
  const W = { ...DEFAULT_FIELD_WEIGHTS, ...P.W };
  let terms = wordnetExpansion(
    query,
    prefixFallback(
      [...new Set(searchTokens(query))].filter((t) => !P.moreStop || !MORE_STOP.has(t)).map((t) => [t, 1]),
      P,
    ),
    P,
  );
  const run = (terms) => {
    const qw = terms.reduce((s, [t, w]) => s + w * idf(t), 0);
    const sc = [];
    for (let i = 0; i < N; i++) {
      if (docs[i].hidden) continue;
      let s = 0,
        cov = 0;
      for (const [t, w] of terms) {
        let tf = tfOf(i, t, W);
        if (P.lead > 0) {
          const c = leadCount(i, t, P.leadTokens);
          if (c > 0)
            tf += (P.lead * c) / (1 - 0.3 + (0.3 * Math.min(P.leadTokens, toks[i][1].length)) / avgLead(P.leadTokens));
        }
        const wi = Math.pow(idf(t), P.idfExp);
        if (tf > 0) {
          s += w * wi * (tf / (P.k1 + tf) + P.delta);
          cov += w * idf(t);
        }
      }
      if (s <= 0) continue;
      s *= Math.pow(cov / qw, P.covExp);
      sc.push([i, s]);
    }
    return sc;
  };
  let sc = run(terms);
  if (P.bigram > 0) {
    const q = searchTokens(query);
    const pairs = [];
    for (let j = 0; j + 1 < q.length; j++) pairs.push([q[j], q[j + 1]]);
    for (const e of sc) {
      let bonus = 0;
      for (const [a, b] of pairs) {
        for (let f = 0; f < 4; f++)
          if (joined[e[0]][f].includes(` ${a} ${b} `)) {
            bonus += (idf(a) + idf(b)) / 2;
            break;
          }
      }
      e[1] += P.bigram * bonus;
    }
  }
  sc.sort((a, b) => b[1] - a[1]);
  if (P.metaRrf) {
    // Fuse with the same query over metadata only (description-first), by reciprocal rank fusion.
    const meta = rank(query, {
      ...P,
      metaRrf: false,
      W: { ...P.W, headings: { weight: 0, b: 0.5 }, body: { weight: 0, b: 0.75 } },
      ids: true,
    });
    const fused = new Map();
    sc.slice(0, 50).forEach(([i], r) => fused.set(i, 1 / (60 + r + 1)));
    meta.forEach((i, r) => fused.set(i, (fused.get(i) ?? 0) + 1 / (60 + r + 1)));
    sc = [...fused].sort((a, b) => b[1] - a[1]);
  }
  if (P.ids) return sc.slice(0, 50).map(([i]) => i);
  if (P.prf > 0 && sc.length) {
    const top = sc.slice(0, P.prfDocs);
    const tw = new Map();
    for (const [i] of top)
      for (let f = 0; f < 4; f++)
        for (const [t, c] of counts[i][f]) tw.set(t, (tw.get(t) ?? 0) + (idf(t) * c) / toks[i][f].length);
    const qs = new Set(terms.map(([t]) => t));
    const add = [...tw]
      .filter(([t]) => !qs.has(t))
      .sort((a, b) => b[1] - a[1])
      .slice(0, P.prfTerms);
    const mx = add[0]?.[1] ?? 1;
    sc = run([...terms, ...add.map(([t, w]) => [t, (P.prf * w) / mx])]);
    sc.sort((a, b) => b[1] - a[1]);
  }
  return sc.slice(0, 5).map(([i]) => docs[i].id);
}
function evalSplit(split, P) {
  let n = 0,
    r1 = 0,
    r3 = 0;
  for (const q of queries) {
    if (q.kind === "none" || (split !== "all" && q.split !== split)) continue;
    n++;
    const ids = rank(q.query, P);
    const rel = new Set(q.relevant);
    const at = ids.findIndex((x) => rel.has(x));
    if (at === 0) r1++;
    if (at >= 0 && at < 3) r3++;
  }
  return `${(r1 / n).toFixed(3)}/${(r3 / n).toFixed(3)}`;
}
const base = {
  k1: 1.6,
  covExp: 0,
  bigram: 0,
  prf: 0,
  prfDocs: 3,
  prfTerms: 10,
  W: {},
  delta: 0,
  idfExp: 1,
  lead: 0,
  leadTokens: 12,
  prefix: 0,
  prefixWeight: 0.5,
  wn: undefined,
};
// --train-only: while choosing, print the tuning half alone; run the held-out half once for the choice.
const trainOnly = process.argv.includes("--train-only");
const grid = JSON.parse(
  process.argv
    .slice(2)
    .find((a, i, all) => i !== all.indexOf("--corpus") + 1 && a !== "--corpus" && a !== "--train-only") ?? "[{}]",
);
for (const g of grid) {
  const P = { ...base, ...g };
  console.log(JSON.stringify(g), "train", evalSplit("train", P), ...(trainOnly ? [] : ["test", evalSplit("test", P)]));
}
