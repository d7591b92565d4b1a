import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['@troupe/source'] } },
  test: {
    name: '@troupe/storage-postgres',
    include: ['test/**/*.test.ts'],
    setupFiles: ['reflect-metadata'],
    // Starts one throwaway PostgreSQL for all files and builds dist for child-process fixtures.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
