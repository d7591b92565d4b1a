import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from './workspace.js';

/** The reference DIO service running as a child process on a loopback port. */
export interface DioServiceProcess {
  readonly url: string;
  readonly userId: string;
  readonly userToken: string;
  readonly adminToken: string;
  /** Registers (or replaces) a base character prompt with the admin token. */
  putPrompt(targetPromptId: string, content: string, characterName: string): Promise<void>;
  /** SIGKILLs the process. */
  kill(): void;
}

/**
 * Starts `apps/dio-service/dist/main.js` with `PORT=0` (the service picks a free loopback port and
 * prints it), fresh tokens and its data in `dataDir`; the offline model compiles.
 * @param dataDir - DIO_DATA_DIR (a temp directory)
 * @returns the running service
 * @throws {Error} when it exits or does not print its listening line within 20 s
 */
export async function startDioServiceProcess(dataDir: string): Promise<DioServiceProcess> {
  const userId = 'alice';
  const userToken = randomBytes(18).toString('base64url');
  const adminToken = randomBytes(18).toString('base64url');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', DIO_HOST: '127.0.0.1', DIO_DATA_DIR: dataDir, DIO_TOKENS: `${userToken}:${userId}`, DIO_ADMIN_TOKEN: adminToken };
  const child = spawn(process.execPath, [join(WORKSPACE_ROOT, 'apps/dio-service/dist/main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await listeningUrl(child);
  return {
    url,
    userId,
    userToken,
    adminToken,
    async putPrompt(targetPromptId, content, characterName) {
      const response = await fetch(`${url}/v1/prompts/${targetPromptId}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content, characterName }),
      });
      if (!response.ok) throw new Error(`PUT /v1/prompts/${targetPromptId}: HTTP ${response.status} ${await response.text()}`);
    },
    kill() {
      child.kill('SIGKILL');
    },
  };
}

/** Resolves with the URL from the service's "listening on http://…" line. */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dio-service did not start within 20 s:\n${output}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dio-service exited with ${code}:\n${output}`));
    });
  });
}
