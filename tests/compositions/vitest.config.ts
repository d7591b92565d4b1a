import { defineConfig } from 'vitest/config';

// Packs, installs (npm, outside the workspace) and runs real child processes: generous timeouts,
// but the whole file is expected to finish in well under 90 s on a warm npm cache.
export default defineConfig({
  test: {
    name: '@troupe/compositions-test',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 150_000,
  },
});
