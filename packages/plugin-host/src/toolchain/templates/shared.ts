/** Files every template shares; `{{…}}` placeholders are filled by createPlugin. */

export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">
  <rect width="64" height="64" rx="14" fill="#3370ff"/>
  <path d="M20 22h24M20 32h24M20 42h14" stroke="#fff" stroke-width="5" stroke-linecap="round"/>
</svg>
`;

export const CHILD_LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">
  <rect width="64" height="64" rx="14" fill="#12b76a"/>
  <path d="M22 33l7 7 14-16" stroke="#fff" stroke-width="5" fill="none" stroke-linecap="round" stroke-linejoin="round"/>
</svg>
`;

export const TSCONFIG = `{
  "compilerOptions": {
    "target": "ES2023",
    "lib": ["ES2023"],
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "strict": true,
    "noEmit": true,
    "esModuleInterop": true,
    "skipLibCheck": true,
    "types": ["node"]
  },
  "include": ["*.ts"]
}
`;

/**
 * The plugin's own vitest config: vitest then treats the plugin folder as its root, so `npm test` runs the
 * plugin's spec even inside another project that has a vitest config of its own (this repository, say).
 */
export const VITEST_CONFIG = `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['**/*.{spec,test}.ts'],
    exclude: ['node_modules/**', 'dist/**'],
  },
});
`;

export function packageJson(name: string, description: string): string {
  return (
    JSON.stringify(
      {
        name,
        version: "0.1.0",
        description,
        private: true,
        type: "module",
        scripts: {
          build: "skillport plugin build --entry . --output ./dist --minify",
          "build:dev": "skillport plugin build --entry . --output ./dist",
          check: "skillport plugin check --entry . --output ./dist",
          pack: "skillport plugin pack --entry . --dist ./dist --output ./out",
          test: "vitest run",
        },
        dependencies: { "@skillport/plugin": "^0.1.0", zod: "^4.1.0" },
        // esbuild: the CLI's `plugin build` needs it and it is an optional peer of skillport (decision 0295).
        devDependencies: {
          "@types/node": "^20.19.0",
          esbuild: "^0.28.2",
          skillport: "^0.1.0",
          typescript: "~5.9.3",
          vitest: "^4.1.0",
        },
      },
      null,
      2,
    ) + "\n"
  );
}
