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

/**
 * Runs a fixture in its own Node process and returns its stdout.
 * @param name - file in `test/fixtures`
 * @param args - its arguments
 */
export async function runFixture(name: string, args: readonly string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [fixture(name), ...args], { env: childEnv(), maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}
