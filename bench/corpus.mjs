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

function skillMd(random, name) {
  const description = `${sentence(random, 12)} Use when the user asks to ${sentence(random, 8).toLowerCase()}`;
  const block = random() < 0.15;
  const lines = [
    "---",
    `name: ${name}`,
    block ? `description: >\n  ${description}` : `description: ${description}`,
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

export async function generateCorpus(root, count, seed = 42) {
  const random = prng(seed + count);
  await mkdir(root, { recursive: true });
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(5, "0")}`;
    const dir = path.join(root, name);
    await mkdir(dir, { recursive: true });
    const writes = [writeFile(path.join(dir, "SKILL.md"), skillMd(random, name))];
    const resources = Math.floor(random() * 6);
    for (let r = 0; r < resources; r++) {
      const kind = ["references", "scripts", "assets"][r % 3];
      await mkdir(path.join(dir, kind), { recursive: true });
      writes.push(writeFile(path.join(dir, kind, `file-${r}.md`), sentence(random, 200)));
    }
    await Promise.all(writes);
  }
}
