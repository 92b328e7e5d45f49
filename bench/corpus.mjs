// Generates realistic skills: SKILL.md 2–20 KB with a ~10-line frontmatter, 0–5 resources each.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { prng } from "./lib.mjs";

const WORDS = (
  "analyse report deploy review test summarise convert extract validate schedule monitor release invoice customer " +
  "data pipeline cluster service query table chart document spreadsheet image audio translate classify ticket " +
  "incident changelog migration backup archive search index cache metric alert budget forecast contract policy"
).split(" ");

function sentence(random, words) {
  const out = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]);
  const text = out.join(" ");
  return text[0].toUpperCase() + text.slice(1) + ".";
}

// Real public skills mix plain descriptions with double-quoted ones holding escapes (anthropics' pptx and xlsx) and
// folded block scalars; some teams write Chinese. The mix follows issue 14: 30% quoted with escapes, 20% folded `>-`,
// 50% plain; one skill in eight has a Chinese description.
const CJK = [
  "整理表格数据",
  "生成周报",
  "清洗重复行",
  "统一日期格式",
  "汇总销售额",
  "翻译技术文档",
  "检查合同条款",
  "分析日志告警",
];

function description(random) {
  const cjk = random() < 0.125;
  const what = cjk
    ? `${CJK[Math.floor(random() * CJK.length)]}，${CJK[Math.floor(random() * CJK.length)]}。`
    : sentence(random, 12);
  const when = `Use when the user asks to ${sentence(random, 8).toLowerCase()}`;
  const style = random();
  if (style < 0.3) {
    // Double-quoted with the escapes real files use: \" around a phrase, and sometimes \n or \u00e9.
    const quoted = `${what} \\"${sentence(random, 3).slice(0, -1)}\\" ${when}${random() < 0.3 ? " \\u00e9t\\u00e9" : ""}`;
    return `description: "${quoted}"`;
  }
  if (style < 0.5) return `description: >-\n  ${what}\n  ${when}`;
  return `description: ${what} ${when}`;
}

function skillMd(random, name) {
  const lines = [
    "---",
    `name: ${name}`,
    description(random),
    "license: Apache-2.0",
    "metadata:",
    `  author: team-${Math.floor(random() * 50)}`,
    `  version: "${1 + Math.floor(random() * 3)}.${Math.floor(random() * 10)}.0"`,
    `  category: ${WORDS[Math.floor(random() * WORDS.length)]}`,
    "---",
    "",
    `# ${name}`,
    "",
  ];
  const target = 2048 + Math.floor(random() * 18 * 1024);
  let body = lines.join("\n");
  let section = 1;
  while (body.length < target) {
    body += `\n## Step ${section++}\n\n${sentence(random, 40)} ${sentence(random, 30)}\n\n- ${sentence(random, 10)}\n- ${sentence(random, 12)}\n`;
  }
  return body;
}

/**
 * Skill `i` of a corpus: its folder name and files (SKILL.md plus 0–5 resources), drawn from `random` in a fixed order,
 * so a corpus written to disk and one built in memory (bench/registry.mjs publishes it) hold the same skills.
 */
/** 1,560 two-word queries from the corpus's vocabulary, in a fixed order (searches no cache has seen). */
export function freshQueries() {
  const words = (
    "analyse report deploy review test summarise convert extract validate schedule monitor release invoice customer " +
    "data pipeline cluster service query table chart document spreadsheet image audio translate classify ticket " +
    "incident changelog migration backup archive search index cache metric alert budget forecast"
  ).split(" ");
  const out = [];
  for (const a of words) for (const b of words) if (a !== b) out.push(`${a} ${b}`);
  return out;
}

export function corpusSkill(random, i) {
  const name = `skill-${String(i).padStart(5, "0")}`;
  const files = [{ path: "SKILL.md", text: skillMd(random, name) }];
  const resources = Math.floor(random() * 6);
  for (let r = 0; r < resources; r++) {
    const kind = ["references", "scripts", "assets"][r % 3];
    files.push({ path: `${kind}/file-${r}.md`, text: sentence(random, 200) });
  }
  return { name, files };
}

export function corpusRandom(count, seed = 42) {
  return prng(seed + count);
}

export async function generateCorpus(root, count, seed = 42) {
  const random = corpusRandom(count, seed);
  await mkdir(root, { recursive: true });
  for (let i = 0; i < count; i++) {
    const { name, files } = corpusSkill(random, i);
    const dir = path.join(root, name);
    await mkdir(dir, { recursive: true });
    await Promise.all(
      files.map(async (f) => {
        await mkdir(path.dirname(path.join(dir, f.path)), { recursive: true });
        await writeFile(path.join(dir, f.path), f.text);
      }),
    );
  }
}
