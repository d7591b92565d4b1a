import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const APP = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A `troupe-demo serve` child process (the compiled CLI) on a free loopback port. */
export interface DemoServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Resolves with how the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Compiles the demo (incremental: fast when up to date), so children run the current sources. */
export function buildDemo(): void {
  execFileSync(process.execPath, [join(APP, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'tsconfig.src.json'], { cwd: APP, stdio: 'pipe' });
}

/**
 * Starts `troupe-demo --data <dataDir> serve --port 0` and waits for its URL.
 * @param dataDir - the data folder
 * @param env - extra environment (model settings)
 * @returns the running server
 */
export async function startDemoServer(dataDir: string, env: Record<string, string> = {}): Promise<DemoServerProcess> {
  const child = spawn(process.execPath, [join(APP, 'dist', 'cli', 'main.js'), '--data', dataDir, 'serve', '--port', '0'], {
    cwd: APP,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /web app: (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then(({ code }) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  return { child, url, stderr: () => err, exited };
}
