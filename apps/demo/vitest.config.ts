import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['@troupe/source'] } },
  test: {
    name: '@troupe/demo',
    include: ['test/**/*.test.ts'],
    setupFiles: ['reflect-metadata'],
    // Builds the web UI for the browser tests (only when /usr/bin/chromium exists).
    globalSetup: ['test/support/build-web.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
