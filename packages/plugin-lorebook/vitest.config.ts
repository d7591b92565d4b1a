import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['@troupe/source'] } },
  test: {
    name: '@troupe/plugin-lorebook',
    include: ['test/**/*.test.ts'],
    setupFiles: ['reflect-metadata'],
  },
});
