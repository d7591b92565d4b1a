import { execFile } from 'node:child_process';

/** What a finished child process printed. */
export interface CommandOutput {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a command to completion (no shell) and rejects with its output when it exits non-zero.
 * @param command - executable name or path
 * @param args - arguments
 * @param options - working directory, environment and a timeout in ms
 * @returns what it printed
 * @throws {Error} when the command fails or times out; the message carries stdout and stderr
 */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv; readonly timeoutMs?: number },
): Promise<CommandOutput> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${command} ${args.join(' ')} failed in ${options.cwd}: ${error.message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
          return;
        }
        resolve({ stdout, stderr });
      },
    );
  });
}
