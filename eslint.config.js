// Lint without type information: fast on 2 cores; the typecheck step covers types.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/node_modules/**",
      "**/__fixtures__/**",
      "coverage/**",
      ".bench-tmp/**",
      "examples/**/scripts/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "no-control-regex": "off",
      "no-console": "error",
    },
  },
  {
    // Only the CLI, benchmarks and scripts talk to a terminal.
    files: ["packages/cli/src/**", "bench/**", "scripts/**", "**/*.test.ts", "**/*.mjs"],
    rules: { "no-console": "off" },
  },
);
