import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliContext } from '../src/cli/context.js';
import type { CliOutput } from '../src/cli/output.js';

/** A CLI context whose output is captured, with an environment that forces the offline model. */
export function capturedContext(env: NodeJS.ProcessEnv = {}, input?: NodeJS.ReadableStream): CliContext & { readonly lines: string[]; text(): string } {
  const lines: string[] = [];
  let partial = false;
  const output: CliOutput = {
    isTTY: false,
    line: (text = '') => {
      partial = false;
      lines.push(text);
    },
    // Streamed text accumulates on a line of its own until the next line() call.
    write: (text) => {
      if (lines.length === 0 || !partial) lines.push('');
      lines[lines.length - 1] += text;
      partial = true;
    },
    status: () => {},
    clearStatus: () => {},
  };
  return { output, env, lines, text: () => lines.join('\n'), ...(input ? { input } : {}) };
}

/** A fresh temporary data directory and its cleanup. */
export async function tempDataDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-demo-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
