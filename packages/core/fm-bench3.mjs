import { parseSkillMd } from "@skillport/core";
const label = process.argv[2];
const shapes = { tab: (i) => `\tk${i}: v`, dash: (i)=>`- k${i}: v`, meta: (i) => `  k${i}: v` };
for (const n of [2500, 2500, 10000, 40000]) {
    const keys = Array.from({ length: n }, (_, i) => shapes[label](i)).join("\n");
    const md = `---\nname: a\ndescription: b\nmetadata:\n${keys}\n---\n`;
    const t = performance.now();
    const r = parseSkillMd(md, { limits: { maxFrontmatterLines: Infinity, maxFrontmatterBytes: 1e7 } });
    console.log(label, n, md.length, (performance.now() - t).toFixed(0) + "ms", r.diagnostics.length);
}
