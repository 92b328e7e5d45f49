import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

const workspaces = ["core", "fs", "testing", "sql", "pack", "remote", "sandbox", "audit", "runtime", "runners", "plugin", "plugin-host", "agent", "registry", "install", "mcp"];
const source = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

// Unit tests run against sources; end-to-end tests run the built CLI in packages/cli/dist.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@skillport\/core\/errors$/, replacement: fileURLToPath(new URL("./packages/core/src/errors.ts", import.meta.url)) },
      { find: /^@skillport\/pack\/directory$/, replacement: fileURLToPath(new URL("./packages/pack/src/directory.ts", import.meta.url)) },
      { find: /^@skillport\/pack\/unpack$/, replacement: fileURLToPath(new URL("./packages/pack/src/unpack-entry.ts", import.meta.url)) },
      { find: /^@skillport\/pack\/version$/, replacement: fileURLToPath(new URL("./packages/pack/src/version.ts", import.meta.url)) },
      { find: /^@skillport\/core\/internal\/search$/, replacement: fileURLToPath(new URL("./packages/core/src/search/index.ts", import.meta.url)) },
      { find: /^@skillport\/core\/internal$/, replacement: fileURLToPath(new URL("./packages/core/src/internal.ts", import.meta.url)) },
      { find: /^@skillport\/core\/internal\/parse$/, replacement: fileURLToPath(new URL("./packages/core/src/parse.ts", import.meta.url)) },
      { find: /^@skillport\/core\/internal\/skill$/, replacement: fileURLToPath(new URL("./packages/core/src/skill.ts", import.meta.url)) },
      { find: /^@skillport\/core\/internal\/source$/, replacement: fileURLToPath(new URL("./packages/core/src/source.ts", import.meta.url)) },
      { find: /^@skillport\/core\/internal\/save-batch$/, replacement: fileURLToPath(new URL("./packages/core/src/save-batch.ts", import.meta.url)) },
      { find: /^@skillport\/core\/internal\/safe-path$/, replacement: fileURLToPath(new URL("./packages/core/src/safe-path.ts", import.meta.url)) },
      { find: /^@skillport\/core\/internal\/secret-files$/, replacement: fileURLToPath(new URL("./packages/core/src/secret-files.ts", import.meta.url)) },
      { find: /^@skillport\/core\/internal\/compare$/, replacement: fileURLToPath(new URL("./packages/core/src/compare.ts", import.meta.url)) },
      { find: /^@skillport\/core\/internal\/validate$/, replacement: fileURLToPath(new URL("./packages/core/src/validate.ts", import.meta.url)) },
      { find: /^@skillport\/fs\/floor$/, replacement: fileURLToPath(new URL("./packages/fs/src/floor.ts", import.meta.url)) },
      { find: /^@skillport\/fs\/tree$/, replacement: fileURLToPath(new URL("./packages/fs/src/tree.ts", import.meta.url)) },
      { find: /^@skillport\/runtime\/workspace$/, replacement: fileURLToPath(new URL("./packages/runtime/src/workspace.ts", import.meta.url)) },
      // core's own package.json "imports": the Node variant, as Node resolves it (decision 0210).
      { find: /^#yaml-library$/, replacement: fileURLToPath(new URL("./packages/core/src/format/yaml-library-node.ts", import.meta.url)) },
      { find: /^@skillport\/core\/redact-uri$/, replacement: fileURLToPath(new URL("./packages/core/src/redact-uri.ts", import.meta.url)) },
      ...workspaces.map((pkg) => ({ find: new RegExp(`^@skillport/${pkg}$`), replacement: source(pkg) })),
      { find: /^@skillport\/fs\/testing$/, replacement: fileURLToPath(new URL("./packages/fs/src/testing.ts", import.meta.url)) },
    ],
  },
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    testTimeout: 120_000, // plugin builds and npm-pack tests are slow on a loaded 2-core machine; hangs still fail
    hookTimeout: 180_000,
    pool: "forks",
    reporters: ["default", "./scripts/plain-summary-reporter.mjs"],
  },
});
