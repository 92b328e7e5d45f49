// Calibrates search confidence on two independent TUNING corpora and reports it on a third, HELD-OUT one
// (issue 20 item 10, decision 0265). Nothing here is tuned on the held-out set: its figures print only with --report,
// after the model and the threshold rule have been fixed from the tuning sets alone.
//
//   node bench/retrieval/calibrate.mjs [--snapshots DIR] [--work DIR] [--report] [--json]
//
// The corpora are re-created from snapshots of the public repositories their manifests name (make-corpus.mjs):
// --snapshots DIR or $SKILLPORT_BENCH_SNAPSHOTS (default ~/.cache/skillport-bench/snapshots), each repository as
// DIR/<owner>+<name>[/repo] or DIR/<owner>__<name>, a bare git directory or a work tree. Without them the script
// prints why and exits 0: CI neither fetches them nor needs them.
//
// What it does:
//   1. Fits the logistic confidence model on the top hits of every query of both tuning sets (each set weighs the
//      same), and for comparison one model per set alone.
//   2. Sweeps thresholds: per tuning set, the share of right top hits kept, of no-fit queries abstained on, and
//      R@1 / R@3 as shown (a query answered with nothing counts as a miss).
//   3. Transfer: each set's own model and threshold (the highest keeping >= 95% of its right top hits) applied to
//      the other set. The rule: a default threshold is kept only if it keeps >= 95% of right top hits on every
//      tuning set AND the transfer between them holds; otherwise the default is 0 (show ranked hits with their
//      confidence; abstain only when asked).
//   4. --report: the held-out set with the pooled model, at the chosen default and at the old 0.3 / old model.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadCorpus } from "./evaluate.mjs";
import { findSnapshot, makeCorpus, readSet, SETS } from "./make-corpus.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { SkillSearchIndex } = await import(path.join(here, "..", "..", "packages", "core", "dist", "index.js"));
const { confidenceOf } = await import(path.join(here, "..", "..", "packages", "core", "dist", "internal.js"));

/** The model Skillport shipped before this calibration (fitted on bench/retrieval's train half alone), and its threshold. */
const OLD_MODEL = {
  bias: -8.295,
  weights: {
    coverage: 0.339,
    metadataCoverage: 1.358,
    normalisedScore: 2.827,
    relativeScore: 6.191,
    nameCoverage: 1.923,
  },
};
const OLD_THRESHOLD = 0.3;
const KEEP_GOAL = 0.95;
const THRESHOLDS = Array.from({ length: 21 }, (_, i) => i / 40); // 0 … 0.5 by 0.025

function parseArgs(argv) {
  const args = {
    snapshots:
      process.env.SKILLPORT_BENCH_SNAPSHOTS || path.join(os.homedir(), ".cache", "skillport-bench", "snapshots"),
    work: undefined,
    report: false,
    json: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--snapshots") args.snapshots = argv[++i];
    else if (a === "--work") args.work = argv[++i];
    else if (a === "--report") args.report = true;
    else if (a === "--json") args.json = true;
    else throw new Error(`unexpected argument ${a}`);
  }
  return args;
}

/** Each query's top hits with their confidence features (the ranking alone; no threshold). */
async function rankSet(set, snapshots, work) {
  const { corpus, queries } = readSet(set);
  const checkouts = new Map();
  for (const source of corpus.sources) {
    const found = findSnapshot(snapshots, source.repo);
    if (!found) return { missing: `${source.repo} (set "${set}")` };
    checkouts.set(source.repo, found);
  }
  const dir = path.join(work, set);
  makeCorpus(dir, checkouts, corpus);
  const skills = await loadCorpus(dir, corpus);
  const index = new SkillSearchIndex(skills);
  const ranked = queries.map((q) => ({
    query: q,
    hits: index.search(q.query, { limit: 20, explain: true }).map((h) => ({ id: h.id, features: h.features })),
  }));
  return { set, skills: skills.length, ranked };
}

/** Weighted logistic regression (gradient descent) on the top five hits of every query; label: the hit fits. */
function fit(sets) {
  const samples = [];
  for (const { ranked } of sets) {
    const mine = [];
    for (const { query, hits } of ranked) {
      const relevant = new Set(query.relevant);
      for (const hit of hits.slice(0, 5)) mine.push({ x: hit.features, y: relevant.has(hit.id) ? 1 : 0 });
    }
    for (const s of mine) samples.push({ ...s, w: 1 / mine.length });
  }
  const keys = Object.keys(samples[0].x);
  const w = Object.fromEntries(keys.map((k) => [k, 0]));
  let bias = 0;
  const total = samples.reduce((n, s) => n + s.w, 0);
  for (let epoch = 0; epoch < 6000; epoch++) {
    const grad = Object.fromEntries(keys.map((k) => [k, 0]));
    let gb = 0;
    for (const { x, y, w: weight } of samples) {
      let z = bias;
      for (const k of keys) z += w[k] * x[k];
      const err = (1 / (1 + Math.exp(-z)) - y) * weight;
      for (const k of keys) grad[k] += err * x[k];
      gb += err;
    }
    for (const k of keys) w[k] -= (0.5 * grad[k]) / total;
    bias -= (0.5 * gb) / total;
  }
  const round = (x) => Math.round(x * 1000) / 1000;
  return { bias: round(bias), weights: Object.fromEntries(keys.map((k) => [k, round(w[k])])) };
}

/** Figures of one set under one model and threshold. */
function measure({ ranked }, model, threshold) {
  let fit = 0,
    r1 = 0,
    r3 = 0,
    topRight = 0,
    kept = 0,
    shown1 = 0,
    shown3 = 0,
    none = 0,
    abstained = 0,
    empty = 0;
  for (const { query, hits } of ranked) {
    const conf = hits.map((h) => confidenceOf(h.features, model));
    const shown = hits.filter((_, i) => conf[i] >= threshold).map((h) => h.id);
    if (query.kind === "none") {
      none++;
      if (shown.length === 0) abstained++;
      continue;
    }
    fit++;
    if (shown.length === 0) empty++;
    const relevant = new Set(query.relevant);
    const at = hits.findIndex((h) => relevant.has(h.id));
    if (at === 0) r1++;
    if (at >= 0 && at < 3) r3++;
    if (at === 0) {
      topRight++;
      if (conf[0] >= threshold) kept++;
    }
    const shownAt = shown.findIndex((id) => relevant.has(id));
    if (shownAt === 0) shown1++;
    if (shownAt >= 0 && shownAt < 3) shown3++;
  }
  return {
    withFit: fit,
    noFit: none,
    r1: r1 / fit,
    r3: r3 / fit,
    kept: kept / Math.max(1, topRight),
    keptOf: `${kept}/${topRight}`,
    shownR1: shown1 / fit,
    shownR3: shown3 / fit,
    emptyWithFit: empty,
    abstained: abstained / Math.max(1, none),
  };
}

/** The highest threshold keeping >= KEEP_GOAL of right top hits on every given set (0 when none above 0 does). */
function highestKeeping(sets, model) {
  let best = 0;
  for (const t of THRESHOLDS) if (sets.every((s) => measure(s, model, t).kept >= KEEP_GOAL)) best = t;
  return best;
}

const f2 = (x) => x.toFixed(2);
const row = (name, m) =>
  `| ${name} | ${m.withFit} | ${f2(m.r1)} | ${f2(m.r3)} | ${f2(m.kept)} (${m.keptOf}) | ${m.emptyWithFit} | ${f2(m.shownR1)} / ${f2(m.shownR3)} | ${f2(m.abstained)} (${m.noFit}) |`;
const HEADER =
  "| set | queries with a fit | R@1 | R@3 | right top hits kept | fit but nothing shown | shown R@1 / R@3 | no-fit abstained (n) |\n|---|---|---|---|---|---|---|---|";

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = parseArgs(process.argv.slice(2));
  const work = args.work ? path.resolve(args.work) : mkdtempSync(path.join(os.tmpdir(), "skillport-calibrate-"));
  try {
    const tuneNames = Object.keys(SETS).filter((s) => SETS[s].role === "tune");
    const tune = [];
    for (const name of tuneNames) {
      const got = await rankSet(name, path.resolve(args.snapshots), work);
      if (got.missing) {
        console.log(
          `skipped: no snapshot of ${got.missing} under ${args.snapshots} (set --snapshots or $SKILLPORT_BENCH_SNAPSHOTS; see docs/search.md)`,
        );
        process.exit(0);
      }
      tune.push(got);
    }
    const pooled = fit(tune);
    const own = Object.fromEntries(tune.map((s) => [s.set, fit([s])]));
    const lines = [];
    const out = { model: pooled, own, sweep: {}, transfer: [], default: undefined };
    lines.push(
      `Tuning sets: ${tune.map((s) => `${s.set} (${s.skills} skills, ${s.ranked.length} queries)`).join(", ")}`,
    );
    lines.push(`\nPooled model (each set weighs the same): ${JSON.stringify(pooled)}`);
    for (const s of tune) lines.push(`Model fitted on ${s.set} alone: ${JSON.stringify(own[s.set])}`);
    lines.push(`\nThreshold sweep, pooled model (right top hits kept / no-fit abstained):`);
    lines.push(`| threshold | ${tune.map((s) => s.set).join(" | ")} |\n|---|${tune.map(() => "---|").join("")}`);
    for (const t of THRESHOLDS) {
      const cells = tune.map((s) => {
        const m = measure(s, pooled, t);
        out.sweep[`${s.set}@${t}`] = m;
        return `${f2(m.kept)} / ${f2(m.abstained)}`;
      });
      lines.push(`| ${t} | ${cells.join(" | ")} |`);
    }
    lines.push(
      `\nTransfer: each set's own model and highest threshold keeping >= ${KEEP_GOAL} of its right top hits, on the other set:`,
    );
    let transferHolds = true;
    for (const from of tune) {
      const t = highestKeeping([from], own[from.set]);
      for (const to of tune.filter((s) => s !== from)) {
        const m = measure(to, own[from.set], t);
        const holds = t === 0 || m.kept >= KEEP_GOAL;
        transferHolds &&= holds;
        out.transfer.push({ from: from.set, to: to.set, threshold: t, kept: m.kept, abstained: m.abstained, holds });
        lines.push(
          `- ${from.set} → ${to.set}: threshold ${t}; on ${to.set} keeps ${m.kept.toFixed(3)} (${m.keptOf}) of right top hits, abstains on ${f2(m.abstained)} of no-fit queries${holds ? "" : "  ✗ below the goal"}`,
        );
      }
    }
    const both = highestKeeping(tune, pooled);
    const chosen = transferHolds ? both : 0;
    out.default = chosen;
    lines.push(`\nHighest threshold keeping >= ${KEEP_GOAL} on every tuning set (pooled model): ${both}`);
    lines.push(
      `Default by the rule: ${chosen}${chosen === 0 ? " (no threshold transfers: show ranked hits with their confidence; abstain only when asked)" : ""}`,
    );
    lines.push(`\nTuning sets at the default ${chosen} (pooled model):\n${HEADER}`);
    for (const s of tune) lines.push(row(s.set, measure(s, pooled, chosen)));
    lines.push(`\nTuning sets at the old default (old model, ${OLD_THRESHOLD}):\n${HEADER}`);
    for (const s of tune) lines.push(row(s.set, measure(s, OLD_MODEL, OLD_THRESHOLD)));
    if (args.report) {
      const held = Object.keys(SETS).filter((s) => SETS[s].role === "report");
      for (const name of held) {
        const got = await rankSet(name, path.resolve(args.snapshots), work);
        if (got.missing) {
          lines.push(`\nheld-out set skipped: no snapshot of ${got.missing}`);
          continue;
        }
        lines.push(
          `\nHELD-OUT set ${name} (${got.skills} skills, ${got.ranked.length} queries; never tuned on):\n${HEADER}`,
        );
        const at = (label, model, t) => {
          const m = measure(got, model, t);
          out[`heldout ${label}`] = m;
          lines.push(row(`${name}, ${label}`, m));
        };
        at(`default ${chosen}, pooled model`, pooled, chosen);
        for (const t of new Set([0.1, 0.2, both, 0.3]))
          if (t !== chosen)
            at(`threshold ${t}${t === both ? " (best on the tuning sets)" : ""}, pooled model`, pooled, t);
        at(`old default ${OLD_THRESHOLD}, old model`, OLD_MODEL, OLD_THRESHOLD);
      }
    }
    console.log(args.json ? JSON.stringify(out) : lines.join("\n"));
  } finally {
    if (!args.work) rmSync(work, { recursive: true, force: true });
  }
}
