// The agent layer, in process (the box lives for a whole conversation): registering 1k and 10k code skills (each run
// in a fresh process, paired with another checkout's build when given: `node bench/agent.mjs --baseline <root>`), a
// warm `callTool('load_skill_through_path')` against reading the body directly, the system prompt at 1k and 10k skills
// against core's agentscope renderer and a plain "name: description" join, and catalog tokens per skill on the
// bundled examples against the name+description floor (goal ≤ 1.1×). ≥ 5 paired runs; ratios are within one run.
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { LocalFileSystemSkillProvider } from "../packages/fs/dist/index.js";
import {
  DEFAULT_AGENTSCOPE_COMPACT_INSTRUCTION,
  DEFAULT_AGENTSCOPE_INSTRUCTION,
  renderCatalog,
  Skill,
} from "../packages/core/dist/index.js";
import { approximateTokenCounter, loadTokenCounter } from "../packages/core/dist/internal.js";
import { SkillBox } from "../packages/agent/dist/index.js";
import { benchSkill, median, printTable, timeNode } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const RUNS = 7;
const { values: args } = parseArgs({
  options: { baseline: { type: "string" }, "register-runs": { type: "string" }, "register-only": { type: "boolean" } },
});

const makeSkill = (i) => benchSkill(Skill, i);

async function boxOf(n) {
  const box = new SkillBox({ enumLimit: 64 });
  for (let i = 0; i < n; i++) await box.registerSkill(makeSkill(i));
  return box;
}

const pct = (values, p) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const us = (ms) => `${(ms * 1000).toFixed(1)} µs`;

// 0. Registration: n `registerSkill` calls in a row, each tree in its own process (bench/agent-register.mjs), the two
// trees alternating (which goes first alternates too) so drift on a shared machine hits both alike. Wall time and the
// process's CPU time (user + sys, every thread: WebCrypto's digest runs off the main thread).
{
  const trees = [
    ["this tree", path.join(here, "..")],
    ...(args.baseline ? [["baseline " + args.baseline, path.resolve(args.baseline)]] : []),
  ];
  const runs = Number(args["register-runs"] ?? RUNS);
  for (const n of [1000, 10000]) {
    const samples = new Map(trees.map(([name]) => [name, []]));
    for (let run = 0; run < runs; run++) {
      const order = run % 2 === 0 ? trees : [...trees].reverse();
      for (const [name, root] of order)
        samples.get(name).push(timeNode([path.join(here, "agent-register.mjs"), root, String(n)]).report);
    }
    const base = samples.get(trees.at(-1)[0]);
    const rows = trees.map(([name]) => {
      const s = samples.get(name);
      const ratios = s.map((r, i) => (r.ms / base[i].ms).toFixed(2));
      return [
        name,
        median(s.map((r) => r.ms)).toFixed(0),
        median(s.map((r) => r.cpuMs)).toFixed(0),
        s.map((r) => r.ms.toFixed(0)).join(" "),
        ratios.join(" "),
      ];
    });
    printTable(
      `registerSkill × ${n.toLocaleString("en")} in a fresh box (${runs} paired runs)`,
      [
        "",
        "wall ms (median)",
        "CPU ms (median)",
        "wall ms per run",
        `÷ ${trees.length > 1 ? "baseline" : "itself"}, per run`,
      ],
      rows,
    );
  }
  if (args["register-only"]) process.exit(0);
}

// 1. Warm load calls.
{
  const box = await boxOf(1000);
  const ids = box.listSkills().map((s) => s.id);
  for (let i = 0; i < 500; i++)
    await box.callTool("load_skill_through_path", { skillId: ids[i % ids.length], path: "SKILL.md" });
  const load = [];
  const base = [];
  for (let run = 0; run < RUNS; run++) {
    for (let i = 0; i < 400; i++) {
      const id = ids[(run * 400 + i) % ids.length];
      let t = performance.now();
      await box.callTool("load_skill_through_path", { skillId: id, path: "SKILL.md" });
      load.push(performance.now() - t);
      t = performance.now();
      const skill = box.getSkill(id);
      const body = await skill.reader.body();
      void `${skill.id}\n${skill.description}\n${body}`;
      base.push(performance.now() - t);
    }
  }
  printTable(
    "warm callTool('load_skill_through_path', SKILL.md) on a box of 1,000 skills",
    ["", "median", "p99", "× baseline (median)"],
    [
      ["baseline: getSkill + read body + format", us(median(base)), us(pct(base, 0.99)), "1.00"],
      [
        "callTool (validate, resolve, read, activate, format)",
        us(median(load)),
        us(pct(load, 0.99)),
        (median(load) / median(base)).toFixed(2),
      ],
    ],
  );
}

// 2. Prompt rendering.
for (const n of [1000, 10000]) {
  const box = await boxOf(n);
  const entries = box
    .listSkills()
    .map((s) => ({ id: s.id, name: s.name, description: s.description, metadata: s.frontmatter, source: s.source }));
  const prompt = [];
  const core = [];
  const floor = [];
  for (let run = 0; run < RUNS; run++) {
    box.setInstruction(undefined); // drops the cached prompt
    let t = performance.now();
    box.getSkillPrompt();
    prompt.push(performance.now() - t);
    t = performance.now();
    renderCatalog(entries, { format: "agentscope" });
    core.push(performance.now() - t);
    t = performance.now();
    entries.map((e) => `${e.name}: ${e.description}`).join("\n");
    floor.push(performance.now() - t);
  }
  printTable(
    `system prompt at ${n.toLocaleString("en")} skills (median of ${RUNS})`,
    ["", "ms", "× floor"],
    [
      ["floor: name: description lines", median(floor).toFixed(2), "1.00"],
      ["core renderCatalog(agentscope)", median(core).toFixed(2), (median(core) / median(floor)).toFixed(1)],
      ["box.getSkillPrompt()", median(prompt).toFixed(2), (median(prompt) / median(floor)).toFixed(1)],
    ],
  );
}

// 3. Catalog tokens per skill on the bundled examples.
{
  let counter = approximateTokenCounter;
  let tokenizer = "characters ÷ 4";
  try {
    counter = await loadTokenCounter("o200k_base");
    tokenizer = "o200k_base";
  } catch {
    // js-tiktoken is optional
  }
  const box = await SkillBox.create({
    sources: [new LocalFileSystemSkillProvider(path.join(here, "../examples/skills"))],
  });
  const skills = box.listSkills();
  const header = counter.count(`${DEFAULT_AGENTSCOPE_INSTRUCTION}\n\n<available_skills>\n</available_skills>`);
  const floor = skills.reduce((sum, s) => sum + counter.count(`${s.name}: ${s.description}\n`), 0) / skills.length;
  const rows = [["floor: name: description", floor.toFixed(1), "1.00"]];
  for (const expose of [false, true]) {
    box.setExposeAllSkillMetadata(expose);
    const perSkill = (counter.count(box.getSkillPrompt()) - header) / skills.length;
    rows.push([
      `agentscope catalog, ${expose ? "all metadata" : "name+description+id"}`,
      perSkill.toFixed(1),
      (perSkill / floor).toFixed(2),
    ]);
  }
  box.setCatalogLayout("compact");
  const compactHeader = counter.count(
    `${DEFAULT_AGENTSCOPE_COMPACT_INSTRUCTION}\n\n<available_skills>\n</available_skills>`,
  );
  const compact = (counter.count(box.getSkillPrompt()) - compactHeader) / skills.length;
  rows.push(["compact catalog (catalogLayout: compact)", compact.toFixed(1), (compact / floor).toFixed(2)]);
  printTable(
    `catalog tokens per skill, ${skills.length} bundled examples (${tokenizer}; header excluded)`,
    ["", "tokens/skill", "× floor (goal ≤ 1.1)"],
    rows,
  );
}
