import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newEvent } from '@troupe/kernel/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { tempRoot } from './helpers.js';

// SESSION_CORRUPT names the damaged line so a player can find it in a text editor: the number
// must be that line's, however often (and by whichever call) the damaged log is read.
let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

const eventsFile = () => join(root, 'sessions', 's', 'events.jsonl');

async function messageOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    expect((error as { code?: string }).code).toBe('SESSION_CORRUPT');
    return (error as Error).message;
  }
  throw new Error('expected SESSION_CORRUPT');
}

/** A 24-line log whose line 12 a cut damaged mid-line (the lines after it are intact). */
async function damageLine12(): Promise<void> {
  const lines = (await readFile(eventsFile(), 'utf8')).split('\n');
  lines[11] = (lines[11] ?? '').slice(0, 20);
  await writeFile(eventsFile(), lines.join('\n'));
}

describe('the damaged line SESSION_CORRUPT names', () => {
  it('is the real line on every read, in the process that wrote the log and in a fresh one', async () => {
    const { sessions } = fsStorage({ root });
    await sessions.append('s', Array.from({ length: 24 }, (_, n) => newEvent('test/line', { n }, { key: `k${n}` })));
    expect(await sessions.read('s')).toHaveLength(24);
    await damageLine12();
    for (const log of [sessions, fsStorage({ root }).sessions]) {
      const calls = [
        () => log.read('s'),
        () => log.findLatest('s', { type: 'test/line', key: 'k3' }),
        () => log.readTyped('s', { types: ['test/line'] }),
        () => log.append('s', [newEvent('test/after')]),
        () => log.read('s'),
        () => log.read('s'),
      ];
      for (const call of calls) {
        const message = await messageOf(call);
        expect(message.replace(eventsFile(), "<log>")).toContain("<log> line 12 ");
      }
    }
  });
});
