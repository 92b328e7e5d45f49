import { defineConfig } from "vitest/config";

// Unit tests run against sources: every workspace package's "exports" (and core's "imports") map has a
// "@skillport/source" condition pointing at its src/*.ts (decision 0310). End-to-end tests run the built CLI in
// packages/cli/dist.
// The rest are Vite's defaults for server code (its `defaultServerConditions`), which a set list replaces.
const conditions = ["@skillport/source", "module", "node", "development|production"];

export default defineConfig({
  resolve: { conditions },
  // Node loads external packages itself: no "module" condition there (it would pick ESM builds Node cannot load, such as
  // @opentelemetry/api's extension-less imports under the AI SDK).
  ssr: { resolve: { conditions: conditions.filter((c) => c !== "module"), externalConditions: ["node"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    testTimeout: 120_000, // plugin builds and npm-pack tests are slow on a loaded 2-core machine; hangs still fail
    hookTimeout: 180_000,
    pool: "forks",
    reporters: ["default", "./scripts/plain-summary-reporter.mjs"],
  },
});
