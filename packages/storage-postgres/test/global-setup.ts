import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startThrowawayServer } from '../src/testing/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of the suite's throwaway server; '' when TROUPE_SKIP_PG=1. */
    pgUrl: string;
  }
}

/**
 * One throwaway PostgreSQL for every test file of the package (each test gets its own schema),
 * and a build of `dist` for the child-process fixtures. Without PostgreSQL binaries this fails
 * the run, unless the developer set TROUPE_SKIP_PG=1.
 */
export default function setup(project: TestProject): () => void {
  const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
  execFileSync(join(packageDir, '..', '..', 'node_modules', '.bin', 'tsc'), ['-b', 'tsconfig.src.json'], { cwd: packageDir, stdio: 'inherit' });
  if (process.env.TROUPE_SKIP_PG === '1') {
    console.warn('@troupe/storage-postgres: TROUPE_SKIP_PG=1, so the PostgreSQL tests are skipped (no server started).');
    project.provide('pgUrl', '');
    return () => {};
  }
  const server = startThrowawayServer();
  project.provide('pgUrl', server.url);
  return () => server.stop();
}
