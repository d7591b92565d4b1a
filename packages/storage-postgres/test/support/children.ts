import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Environment for child processes: plain Node resolving the built `dist` (no vitest conditions). */
export function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return env;
}

/** Absolute path of a fixture script in `test/fixtures`. */
export function fixture(name: string): string {
  return join(import.meta.dirname, '..', 'fixtures', name);
}

/** How long a fixture may run before it is killed: far above any run's, so only a hang meets it. */
const FIXTURE_TIMEOUT_MS = 5 * 60_000;

/**
 * Runs a fixture in its own Node process and returns its stdout.
 * @param name - file in `test/fixtures`
 * @param args - its arguments
 * @throws when the fixture fails, or runs longer than {@link FIXTURE_TIMEOUT_MS} (it is killed
 * then: a hung child never outlives the suite)
 */
export async function runFixture(name: string, args: readonly string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [fixture(name), ...args], { env: childEnv(), maxBuffer: 16 * 1024 * 1024, timeout: FIXTURE_TIMEOUT_MS, killSignal: 'SIGKILL' });
  return stdout;
}
