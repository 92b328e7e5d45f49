// The OpenAPI document is generated from the route definitions (the same zod schemas requests are checked with), and
// the committed copy, docs/registry-openapi.json, is that generation: regenerate it with
// SKILLPORT_UPDATE_OPENAPI=1 npx vitest run packages/registry/src/openapi.test.ts
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BUILT_IN_MODULES, openApiDocument } from "./index.js";

const committed = fileURLToPath(new URL("../../../docs/registry-openapi.json", import.meta.url));

describe("OpenAPI", () => {
  const doc = openApiDocument(BUILT_IN_MODULES) as {
    paths: Record<
      string,
      Record<string, { operationId: string; parameters: Array<{ name: string; in: string }>; requestBody?: unknown }>
    >;
  };

  it("documents every route, both skill path forms, each path parameter, unique operation ids", () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const op of Object.values(item)) {
        expect(ids.has(op.operationId), op.operationId).toBe(false);
        ids.add(op.operationId);
        const declared = op.parameters.filter((p) => p.in === "path").map((p) => p.name);
        expect(declared, path).toEqual([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
      }
    }
    expect(Object.keys(doc.paths)).toContain("/api/v1/skills/{scope}/{name}/versions/{version}/download");
    expect(doc.paths["/api/v1/skills"]?.post?.requestBody).toMatchObject({
      content: { "multipart/form-data": { schema: { required: ["archive"] } } },
    });
    expect(doc.paths["/api/v1/skills"]?.get?.parameters.map((p) => p.name)).toEqual([
      "q",
      "namespace",
      "tag",
      "verdict",
      "limit",
      "offset",
    ]);
  });

  it("docs/registry-openapi.json is the generated document", () => {
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    if (process.env.SKILLPORT_UPDATE_OPENAPI) writeFileSync(committed, text);
    expect(readFileSync(committed, "utf8")).toBe(text);
  });
});
