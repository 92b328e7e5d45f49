import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['**/*.{spec,test}.ts'],
    exclude: ['node_modules/**', 'dist/**'],
  },
});
