import { type ChildProcess, fork } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHarness, foldCommittedTurns } from '@troupe/kernel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { childEnv, tempRoot } from './helpers.js';

// Two processes on one data folder, as two `serve` processes would be: the session's turn lock
// (sessions/.turn-locks) must make each turn read the history the other process committed, and a
// holder killed mid-turn must not keep the session locked.

const worker = join(import.meta.dirname, 'fixtures', 'turn-worker.mjs');
const STRESS = process.env.STRESS === '1';
const PROCESSES = STRESS ? 4 : 2;
const TURNS_EACH = STRESS ? 10 : 3;

let root: string;
let cleanup: () => Promise<void>;
const children: ChildProcess[] = [];
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await cleanup();
});

function start(args: string[]): ChildProcess {
  const child = fork(worker, [root, ...args], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [], env: childEnv() });
  children.push(child);
  return child;
}

/** The child's next IPC message; rejects when it exits first. */
function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`worker exited with ${code} before answering`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as T);
    });
  });
}

describe('turns of one session across processes', () => {
  it(`${PROCESSES} processes racing ${TURNS_EACH} turns each: every turn reads the previous one`, async () => {
    const goFile = join(root, 'go');
    const workers = Array.from({ length: PROCESSES }, () => start(['turns', 'race', goFile, String(TURNS_EACH)]));
    await Promise.all(workers.map((child) => nextMessage<string>(child)));
    const results = workers.map((child) => nextMessage<{ replies: string[] }>(child));
    await writeFile(goFile, '');
    const replies = (await Promise.all(results)).flatMap((result) => result.replies);
    const expected = Array.from({ length: PROCESSES * TURNS_EACH }, (_, n) => `saw ${n + 1}`);
    const seen = (reply: string) => Number(reply.replace('saw ', ''));
    expect([...replies].sort((a, b) => seen(a) - seen(b))).toEqual(expected);
    // The log agrees: every turn committed, the n-th of which saw n player messages.
    const committed = foldCommittedTurns(await fsStorage({ root }).sessions.read('race'));
    expect([...committed.values()].map((turn) => turn.reply)).toEqual(expected);
    expect(await readdir(join(root, 'sessions', '.turn-locks'))).toEqual([]);
  }, STRESS ? 300_000 : 60_000);

  it('a holder SIGKILLed inside its turn does not keep the session locked', async () => {
    const hanging = start(['hang', 'held']);
    expect(await nextMessage<string>(hanging)).toBe('in-actor');
    expect(await readdir(join(root, 'sessions', '.turn-locks'))).toEqual(['held.lock']);
    hanging.kill('SIGKILL');
    await new Promise((resolve) => hanging.once('exit', resolve));
    // A short wait limit: were the dead holder's lock respected, this turn would fail with STORAGE_IO.
    const sessions = fsStorage({ root, turnLockTimeoutMs: 10_000 }).sessions;
    const harness = await createHarness({ model: { id: 'm', generate: async () => ({ text: 'answered' }) }, sessionLog: sessions });
    expect((await harness.runTurn({ sessionId: 'held', text: 'anyone there?' })).reply).toBe('answered');
    await harness.close();
    expect(await readdir(join(root, 'sessions', '.turn-locks'))).toEqual([]);
  }, 60_000);
});
