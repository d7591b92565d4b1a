import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/**
 * Vitest global setup: builds the browser UI (a second or two) when the browser tests can run,
 * so `pnpm --filter @troupe/demo test` works from a clean clone without a separate build step.
 */
export default async function buildWeb(): Promise<void> {
  if (!existsSync('/usr/bin/chromium')) return;
  await build({ configFile: fileURLToPath(new URL('../../web/vite.config.ts', import.meta.url)), mode: 'production', logLevel: 'warn' });
}
