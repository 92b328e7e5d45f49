// A separate process for the concurrency tests: it imports the BUILT package, like a second application would.
//   node worker.mjs migrate <url>
//   node worker.mjs writer <url> <skill> <tag> <rounds> <files>
//   node worker.mjs create <url> <tag> <names…>
// Each prints "ready" once loaded and starts when a line arrives on stdin (so the processes really start together,
// however slowly the machine spawns them), then prints one JSON line.
import { createInterface } from "node:readline";
import { Skill } from "@skillport/core";
import { SqlSkillRepository } from "../../dist/index.js";

const [mode, url, ...args] = process.argv.slice(2);
const lines = createInterface({ input: process.stdin });
const go = new Promise((resolve) => lines.once("line", resolve));
console.log("ready");
await go;
lines.close();

/** A skill whose every part carries `marker`, so a reader can tell whether it saw one save or a mix of two. */
function marked(name, marker, files) {
  const resources = new Map();
  for (let i = 0; i < files; i++) resources.set(`references/part-${i}.md`, `${marker}\n`);
  resources.set("assets/blob.bin", new Uint8Array([0xff, 0x00, ...new TextEncoder().encode(marker)]));
  return new Skill({
    frontmatter: { name, description: `marker ${marker}. Use when testing.` },
    body: `${marker}\n`,
    resources,
  });
}

const repository = new SqlSkillRepository({ connection: url });
try {
  if (mode === "migrate") {
    const state = await repository.ready();
    console.log(JSON.stringify({ applied: state.applied }));
  } else if (mode === "writer") {
    const [name, tag, rounds, files] = args;
    for (let i = 0; i < Number(rounds); i++)
      await repository.save([marked(name, `${tag}-${i}`, Number(files))], { force: true });
    console.log(JSON.stringify({ saved: Number(rounds) }));
  } else if (mode === "create") {
    const [tag, ...names] = args;
    try {
      await repository.save(names.map((name) => marked(name, tag, 5)));
      console.log(JSON.stringify({ ok: true }));
    } catch (error) {
      console.log(JSON.stringify({ ok: false, code: error.code, message: error.message }));
    }
  }
} finally {
  await repository.close();
}
