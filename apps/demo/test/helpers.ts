import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import type { CliContext } from '../src/cli/context.js';
import { runCli } from '../src/cli/program.js';
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

/**
 * Runs the CLI with an environment (no implicit `--data`), capturing stdout lines and stderr.
 * @param env - the environment the CLI sees
 * @param args - the arguments
 * @returns the exit code, stdout text and stderr text
 */
export async function runCliCaptured(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; text: string; stderr: string }> {
  const context = capturedContext(env);
  const errors: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    errors.push(String(chunk));
    return true;
  });
  try {
    const code = await runCli(args, context);
    return { code, text: context.text(), stderr: errors.join('') };
  } finally {
    vi.restoreAllMocks();
  }
}
