// One oversized read in a fresh process, with its memory measured: the size-policy tests (sizes.test.ts) run one per
// attack so each peak is its own. Imports the BUILT package, like an application.
//   node size-probe.mjs <url> <body|description|resource|whole> <maxFileBytes> <maxFrontmatterBytes>
// Prints one JSON line: {error: {name, code, message} | null, skills: string[] | null, growth: bytes}.
import { SqlSkillRepository } from "../../dist/index.js";

const [url, attack, maxFile, maxFrontmatter] = process.argv.slice(2);
const repository = new SqlSkillRepository({
  connection: url,
  maxFileBytes: Number(maxFile),
  maxFrontmatterBytes: Number(maxFrontmatter),
});
// Warm up every path on a small skill first, so the baseline includes the driver's buffers and the loaded code.
await repository.discover();
await repository.getMetadata("small");
await repository.getBody("small");
await repository.readFile("small", "assets/small.txt");
await repository.getAllSkills();
globalThis.gc?.();
const baseline = process.memoryUsage().rss;
let error = null;
let skills = null;
try {
  if (attack === "body") await repository.getBody("big-body");
  else if (attack === "description") {
    await repository.discover();
    await repository.getMetadata("big-desc");
  } else if (attack === "resource") await repository.readFile("big-file", "assets/big.txt");
  else skills = (await repository.getAllSkills()).map((s) => s.name);
} catch (caught) {
  error = { name: caught.constructor.name, code: caught.code ?? null, message: caught.message };
}
const growth = process.resourceUsage().maxRSS * 1024 - baseline;
await repository.close();
console.log(JSON.stringify({ error, skills, growth }));
