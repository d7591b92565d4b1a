import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['@troupe/source'] } },
  test: {
    name: '@troupe/storage-fs',
    include: ['test/**/*.test.ts'],
    setupFiles: ['reflect-metadata'],
    // Child-process fixtures import ../../dist, so build once before the suite.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
