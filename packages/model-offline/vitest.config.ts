import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['@troupe/source'] } },
  test: {
    name: '@troupe/model-offline',
    include: ['test/**/*.test.ts'],
    setupFiles: ['reflect-metadata'],
  },
});
