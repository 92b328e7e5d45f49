// Under Node (package.json "imports", condition "node"): the YAML library loads on first use, not with core. Most
// SKILL.md files never need it (the fast path reads them), and loading its ~70 CommonJS files was a large share of
// every command's start-up (decision 0210). `createRequire` is the only synchronous way to load a module on demand;
// `node:module` itself is fetched on that first use too, since importing it loads Node's source-map support
// (decision 0215).
import type { YamlLibrary } from "./yaml-library.js";

let loaded: YamlLibrary | undefined;

export function yamlLibrary(): YamlLibrary {
  loaded ??= process.getBuiltinModule("node:module").createRequire(import.meta.url)("yaml") as YamlLibrary;
  return loaded;
}
