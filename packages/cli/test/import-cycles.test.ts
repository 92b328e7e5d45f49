// No import cycles (issue 21, decision 0296): every package's module graph is drawn from its TypeScript sources with
// TypeScript's own pre-parser, type-only and dynamic imports included, and any strongly connected group of modules is
// a failure naming its files. The workspace packages' own dependency graph must be acyclic too.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../../", import.meta.url));

/** Module → the modules of the same tree it imports (relative specifiers resolved the way `nodenext` does). */
function importGraph(srcDir: string): Map<string, string[]> {
  const files = readdirSync(srcDir, { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(?:ts|mts|tsx)$/.test(file) && !file.endsWith(".d.ts"))
    .map((file) => path.join(srcDir, file));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolveSource(path.resolve(path.dirname(file), specifier), known))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

function resolveSource(target: string, known: Set<string>): string | undefined {
  const base = target.replace(/\.(?:m?js|tsx?)$/, "");
  return [`${base}.ts`, `${base}.mts`, `${base}.tsx`, path.join(target, "index.ts")].find((candidate) =>
    known.has(candidate),
  );
}

/** Groups of two or more modules that reach each other (and modules importing themselves): Tarjan's algorithm. */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(group.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

const workspaces = (JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")) as { workspaces: string[] })
  .workspaces;
const scratch = mkdtempSync(path.join(os.tmpdir(), "skillport-cycles-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("import cycles", () => {
  it.each(workspaces.filter((ws) => existsSync(path.join(repo, ws, "src"))))(
    "%s: no module imports itself through others",
    (ws) => {
      const src = path.join(repo, ws, "src");
      const found = cycles(importGraph(src)).map((group) => group.map((file) => path.relative(src, file)).join(" ↔ "));
      expect(found).toEqual([]);
    },
  );

  it("the workspace packages depend on each other without a cycle", () => {
    const names = new Map<string, string>();
    const manifests = workspaces.map(
      (ws) =>
        JSON.parse(readFileSync(path.join(repo, ws, "package.json"), "utf8")) as {
          name: string;
          dependencies?: Record<string, string>;
        },
    );
    for (const manifest of manifests) names.set(manifest.name, manifest.name);
    const graph = new Map(
      manifests.map((m) => [m.name, Object.keys(m.dependencies ?? {}).filter((dep) => names.has(dep))]),
    );
    expect(cycles(graph)).toEqual([]);
  });

  // The check itself: a type-only cycle, a cycle through a re-export and a dynamic import, and a folder index.
  it.each([
    [
      "type-only",
      {
        "a.ts": 'import type { B } from "./b.js";\nexport type A = B;',
        "b.ts": 'import type { A } from "./a.js";\nexport type B = A[];',
      },
      [["a.ts", "b.ts"]],
    ],
    [
      "re-export and dynamic import",
      {
        "a.ts": 'export * from "./b.js";',
        "b.ts": 'export const load = () => import("./c.js");',
        "c.ts": 'export { x } from "./a.js";',
      },
      [["a.ts", "b.ts", "c.ts"]],
    ],
    [
      "folder index and self import",
      { "m/index.ts": 'import "../n.js";', "n.ts": 'import "./m/index.js";', "s.ts": 'import "./s.js";' },
      [["m/index.ts", "n.ts"], ["s.ts"]],
    ],
    [
      "a chain is no cycle",
      { "a.ts": 'import "./b.js";', "b.ts": 'import type { C } from "./c.js";', "c.ts": "export type C = 1;" },
      [],
    ],
  ] as const)("finds %s cycles", (name, tree, expected) => {
    const dir = path.join(scratch, name.replace(/\W+/g, "-"));
    for (const [file, text] of Object.entries(tree)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    const found = cycles(importGraph(dir)).map((group) => group.map((file) => path.relative(dir, file)));
    expect(found.sort()).toEqual(expected);
  });
});
