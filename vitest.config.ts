import { defineConfig } from 'vitest/config';

/** One vitest run over every package's own vitest project (used by `pnpm test:all`). */
export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts', 'apps/*/vitest.config.ts', 'tests/*/vitest.config.ts'],
  },
});
