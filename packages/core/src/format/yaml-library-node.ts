// Under Node (package.json "imports", condition "node"): the YAML library loads on first use, not with core. Most
// SKILL.md files never need it (the fast path reads them), and loading its ~70 CommonJS files was a large share of
// every command's start-up (decision 0210). `createRequire` is the only synchronous way to load a module on demand.
import { createRequire } from "node:module";
import type { YamlLibrary } from "./yaml-library.js";

let loaded: YamlLibrary | undefined;

export function yamlLibrary(): YamlLibrary {
  loaded ??= createRequire(import.meta.url)("yaml") as YamlLibrary;
  return loaded;
}
