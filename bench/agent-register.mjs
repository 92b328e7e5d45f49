// One step of bench/agent.mjs, run in its own process: registers <n> code skills into a fresh SkillBox of the tree at
// <root> (its built dist) and prints {"ms", "cpuMs"} of the registrations alone (module loading excluded). The tree
// is an argument so a second checkout (main, say) runs the very same loop: node bench/agent-register.mjs <root> <n>.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { benchSkill } from "./lib.mjs";

const [root, count] = process.argv.slice(2);
const n = Number(count);
if (!root || !Number.isInteger(n) || n < 1) {
  console.error("usage: node bench/agent-register.mjs <repository root> <number of skills>");
  process.exit(2);
}
const dist = (pkg) => pathToFileURL(path.join(path.resolve(root), "packages", pkg, "dist", "index.js")).href;
const { Skill } = await import(dist("core"));
const { SkillBox } = await import(dist("agent"));

// The same skills as bench/agent.mjs registers.
const makeSkill = (i) => benchSkill(Skill, i);

const cpu = process.cpuUsage();
const started = performance.now();
const box = new SkillBox({ enumLimit: 64 });
for (let i = 0; i < n; i++) await box.registerSkill(makeSkill(i));
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
if (box.listSkills().length !== n) throw new Error(`registered ${box.listSkills().length} of ${n} skills`);
console.log(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000 }));
