import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['@troupe/source'] } },
  test: {
    name: '@troupe/dio-service',
    include: ['test/**/*.test.ts'],
    setupFiles: ['reflect-metadata'],
  },
});
