// The audit benchmark (issue 22): recall on the labelled malicious samples (bench/audit/malicious.mjs), the false
// warn/malicious rate on real public skills (the repositories and commits bench/retrieval's manifests name, materialised
// from local snapshots: never copied into this repository), and throughput on one core.
//
//   node bench/audit.mjs [--snapshots DIR] [--cache DIR] [--list-benign]
//
// --snapshots: where the public repositories' git snapshots are (DIR/<owner>+<name>/repo, as `fetch` leaves them;
// default /work/.mirror, or $SKILLPORT_SNAPSHOTS). A repository that is absent is skipped with the reason printed.
// The rules were tuned on the "main" and "copilot" sets; "heldout" is reported as the untouched set.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readSet, SETS } from "./retrieval/make-corpus.mjs";
import { materialiser } from "./skill-corpus.mjs";
import { SAMPLES } from "./audit/malicious.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.dirname(here);
const { auditSkill, atOrAbove, PATTERN_RULES, OTHER_RULES } = await import(
  path.join(repo, "packages/audit/dist/index.js")
);

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const snapshots = flag("--snapshots", process.env.SKILLPORT_SNAPSHOTS ?? "/work/.mirror");
const cache = flag("--cache", path.join(repo, ".bench-tmp/audit-benign"));
const materialise = materialiser(snapshots, cache);

// --- malicious set ---
const malicious = SAMPLES.map((s) => ({
  id: s.id,
  rules: s.rules,
  files: Object.entries(s.files).map(([p, v]) => ({ path: p, bytes: typeof v === "string" ? Buffer.from(v) : v })),
}));
const missed = [];
const seenCodes = new Set();
const ruleMisses = [];
for (const s of malicious) {
  const r = auditSkill(s.files);
  for (const f of r.findings) seenCodes.add(f.code);
  if (!atOrAbove(r.verdict, "warn")) missed.push(`${s.id} (${r.verdict})`);
  for (const code of s.rules) if (!r.findings.some((f) => f.code === code)) ruleMisses.push(`${s.id}: ${code}`);
}
const allCodes = [
  ...new Set([...PATTERN_RULES.map((r) => r.code), ...Object.values(OTHER_RULES).map((r) => r.code)]),
].sort();
console.log(
  `malicious set: ${malicious.length} samples; recall at warn or above: ${(((malicious.length - missed.length) / malicious.length) * 100).toFixed(1)}% (goal >= 95%)`,
);
for (const m of missed) console.log(`  missed: ${m}`);
for (const m of ruleMisses) console.log(`  labelled rule not found: ${m}`);
const uncovered = allCodes.filter((c) => !seenCodes.has(c));
console.log(
  `rule codes exercised by the malicious set: ${allCodes.length - uncovered.length}/${allCodes.length}${uncovered.length ? ` (not: ${uncovered.join(", ")})` : ""}`,
);

// --- benign set ---
const benign = [];
for (const set of Object.keys(SETS)) {
  const { corpus } = readSet(set);
  for (const source of corpus.sources) {
    const got = materialise(set, source);
    if (got.skipped) console.log(`  skipped: ${got.skipped}`);
    else for (const skill of got.skills) benign.push({ set, ...skill });
  }
}
const flagged = [];
const bySet = new Map();
const reviews = new Map();
for (const skill of benign) {
  const r = auditSkill(skill.files);
  const row = bySet.get(skill.set) ?? { skills: 0, flagged: 0, review: 0 };
  row.skills++;
  if (r.verdict === "review") row.review++;
  for (const f of r.findings) if (f.level === "review") reviews.set(f.code, (reviews.get(f.code) ?? 0) + 1);
  if (atOrAbove(r.verdict, "warn")) {
    row.flagged++;
    flagged.push({
      set: skill.set,
      id: skill.id,
      verdict: r.verdict,
      why: r.findings.filter((f) => f.level !== "review").map((f) => `${f.code} ${f.file}:${f.line} ${f.evidence}`),
    });
  }
  bySet.set(skill.set, row);
}
console.log(`\nbenign set: ${benign.length} real public skills`);
for (const [set, row] of bySet) {
  console.log(
    `  ${set.padEnd(8)} (${SETS[set].role === "tune" ? "tuned on" : "held out"}): ${row.skills} skills, ${row.flagged} warn/malicious = ${((row.flagged / row.skills) * 100).toFixed(1)}%, ${row.review} review`,
  );
}
const total = benign.length || 1;
console.log(`  all: ${flagged.length} warn/malicious = ${((flagged.length / total) * 100).toFixed(1)}% (goal <= 3%)`);
for (const f of flagged) {
  console.log(`  - [${f.set}] ${f.id} (${f.verdict})`);
  for (const w of f.why.slice(0, 3)) console.log(`      ${w}`);
}
console.log(
  `  review findings on the benign set by code: ${[...reviews]
    .sort((a, b) => b[1] - a[1])
    .map(([c, n]) => `${c} ${n}`)
    .join(", ")}`,
);

// --- throughput: everything above again, timed, in this one thread ---
const all = [...malicious.map((m) => m.files), ...benign.map((b) => b.files)];
const bytes = all.reduce((n, files) => n + files.reduce((m, f) => m + f.bytes.length, 0), 0);
// CPU seconds of this one thread (process.cpuUsage), not wall time: on a machine shared with other work the wall
// clock measures the neighbours. Both are printed.
const timed = (run) => {
  let cpu = Infinity;
  let wall = Infinity;
  for (let round = 0; round < 3; round++) {
    const c0 = process.cpuUsage();
    const w0 = process.hrtime.bigint();
    run();
    const c = process.cpuUsage(c0);
    cpu = Math.min(cpu, (c.user + c.system) / 1e6);
    wall = Math.min(wall, Number(process.hrtime.bigint() - w0) / 1e9);
  }
  return { cpu, wall };
};
const best = timed(() => {
  for (const files of all) auditSkill(files);
});
console.log(
  `\nthroughput (one thread, files in memory, best of 3): ${all.length} skills (${(bytes / 1048576).toFixed(1)} MiB) in ${best.cpu.toFixed(2)} CPU-s = ${Math.round(all.length / best.cpu)} skills per CPU-second (goal >= 200); wall ${best.wall.toFixed(2)} s = ${Math.round(all.length / best.wall)} skills/s`,
);
// The same with SKILL.md alone (what a catalog-time check of the instructions costs).
const mdOnly = all.map((files) => files.filter((f) => /^skill\.md$/i.test(f.path)));
const bestMd = timed(() => {
  for (const files of mdOnly) auditSkill(files);
});
console.log(
  `throughput, SKILL.md only: ${Math.round(mdOnly.length / bestMd.cpu)} skills per CPU-second; whole skills: ${(bytes / 1048576 / best.cpu).toFixed(1)} MiB per CPU-second`,
);
