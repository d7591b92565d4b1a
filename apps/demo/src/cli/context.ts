import { consoleLogger, silentLogger } from '@troupe/kernel';
import { composeDemo, type Demo } from '../compose.js';
import { type CliOutput, streamOutput } from './output.js';

/** Global options every subcommand accepts. */
export interface GlobalOptions {
  readonly data?: string;
  readonly verbose?: boolean;
}

/** What a subcommand runs with. */
export interface CliContext {
  readonly output: CliOutput;
  readonly env: NodeJS.ProcessEnv;
  /** How long-running commands (`serve`) wait for their stop; default: SIGINT or SIGTERM. */
  readonly waitForStop?: () => Promise<void>;
  /** Where interactive commands (`chat`) read the player's lines; default: stdin. */
  readonly input?: NodeJS.ReadableStream;
}

/** The default context: stdout and the process environment. */
export function defaultContext(): CliContext {
  return { output: streamOutput(process.stdout), env: process.env };
}

/** How long a one-shot command waits for its turn's background work (the DIO task) before exiting. */
export const DRAIN_TIMEOUT_MS = 30_000;

/**
 * Composes the demo for one command and always closes it afterwards.
 * @param context - output and environment
 * @param options - global options (`--data`, `--verbose`)
 * @param body - the command's work
 * @param close - how background work ends: aborted (default), or drained for at most `DRAIN_TIMEOUT_MS`
 */
export async function withDemo<T>(context: CliContext, options: GlobalOptions, body: (demo: Demo) => Promise<T>, close: 'abort' | 'drain' = 'abort'): Promise<T> {
  const demo = await composeDemo({
    env: context.env,
    ...(options.data ? { dataDir: options.data } : {}),
    logger: options.verbose ? consoleLogger('info') : silentLogger,
  });
  try {
    return await body(demo);
  } finally {
    await demo.close(close === 'drain' ? { mode: 'drain', timeoutMs: DRAIN_TIMEOUT_MS } : {});
  }
}
