import { execFile } from 'node:child_process';
import { appendFile, readFile, rm, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { newEvent } from '@troupe/kernel/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage, nodeStorageFs, type StorageFs } from '../src/index.js';
import { eventLine } from '../src/session/event-lines.js';
import { childEnv, countingFs, tempRoot } from './helpers.js';

const run = promisify(execFile);
const fixture = join(import.meta.dirname, 'fixtures', 'find-key.mjs');
const EVENTS = process.env.STRESS === '1' ? 300_000 : 100_000;

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

const eventsFile = (sessionId: string) => join(root, 'sessions', sessionId, 'events.jsonl');
const indexFile = (sessionId: string) => join(root, 'sessions', sessionId, 'index.jsonl');
const draft = (n: number, key = `turn-${n}:0`) => newEvent('story/draft', { n }, { turnId: `t${n}`, key });

/** Raw lines as the store writes them, appended behind the store's back (an older version, or a crash before the index write). */
function rawLines(sessionId: string, from: number, count: number, key: (n: number) => string): string {
  return Array.from({ length: count }, (_, i) => eventLine({ ...draft(from + i, key(from + i)), id: `e${from + i}`, sessionId })).join('');
}

/** A session of five keyed events written and indexed by the store. */
async function fiveEvents(): Promise<void> {
  const { sessions } = fsStorage({ root });
  await sessions.append('s', [draft(1), draft(2), draft(3)]);
  await sessions.append('s', [draft(4), draft(5)]);
}

/** Finds every key with a fresh store instance (cold in-memory state) and checks each hit. */
async function expectFreshFinds(keys: Record<string, number | undefined>, fs: StorageFs = nodeStorageFs): Promise<void> {
  const sessions = fsStorage({ root, fs }).sessions;
  for (const [key, n] of Object.entries(keys)) {
    const found = await sessions.findLatest('s', { type: 'story/draft', key });
    expect(found?.data, key).toEqual(n === undefined ? undefined : { n });
  }
}

describe('persisted session index (index.jsonl)', () => {
  it(`a fresh process finds keys in a ${EVENTS}-event log reading < 1% of events.jsonl, including lines the index does not cover yet`, async () => {
    await fsStorage({ root }).sessions.append('big', [draft(0, 'first')]); // creates the folder (e1)
    await appendFile(eventsFile('big'), rawLines('big', 2, EVENTS - 1, (n) => `turn-${n}:0`));
    // First use scans once and persists the index; later lines come from "another version".
    expect((await fsStorage({ root }).sessions.findLatest('big', { type: 'story/draft', key: 'first' }))?.id).toBe('e1');
    await appendFile(eventsFile('big'), rawLines('big', EVENTS + 1, 3, (n) => `tail-${n}`));
    const size = (await stat(eventsFile('big'))).size;
    const wanted = ['turn-31337:0', `tail-${EVENTS + 2}`, 'missing'];
    const { stdout } = await run(process.execPath, [fixture, root, 'big', 'story/draft', ...wanted], { env: childEnv(), maxBuffer: 1 << 20 });
    const result = JSON.parse(stdout) as { found: ({ id: string; data: unknown } | null)[]; eventsBytes: number };
    expect(result.found.map((event) => event?.id ?? null)).toEqual(['e31337', `e${EVENTS + 2}`, null]);
    expect(result.found[0]?.data).toEqual({ n: 31337 });
    expect(result.eventsBytes).toBeGreaterThan(0);
    expect(result.eventsBytes).toBeLessThan(size / 100);
    // The child extended the index: the next fresh reader needs only a few lines.
    const counting = countingFs('events.jsonl');
    expect((await fsStorage({ root, fs: counting.fs }).sessions.findLatest('big', { type: 'story/draft', key: `tail-${EVENTS + 3}` }))?.id).toBe(`e${EVENTS + 3}`);
    expect(counting.bytesRead()).toBeLessThan(2_000);
  }, 60_000);

  it('stale index: lines appended after it are found, and the next append gets the right id', async () => {
    await fiveEvents();
    await appendFile(eventsFile('s'), rawLines('s', 6, 2, (n) => `turn-${n}:0`));
    await expectFreshFinds({ 'turn-2:0': 2, 'turn-7:0': 7 });
    const [next] = await fsStorage({ root }).sessions.append('s', [draft(8)]);
    expect(next?.id).toBe('e8');
    await expectFreshFinds({ 'turn-7:0': 7, 'turn-8:0': 8 });
  });

  it('a deleted or corrupted index is rebuilt from the log', async () => {
    await fiveEvents();
    const good = await readFile(indexFile('s'), 'utf8');
    const damaged = [
      '',
      'not json\n',
      good.slice(0, good.length - 20), // torn last segment
      `${good}{"from":0,"to":1}\n`, // garbage after valid segments
      good.replace('"version":1', '"version":9'),
      good.replace(/"lengths":\[(\d+)/, (_, n) => `"lengths":[${Number(n) + 1}`), // does not add up
    ];
    for (const text of [undefined, ...damaged]) {
      if (text === undefined) await unlink(indexFile('s'));
      else await writeFile(indexFile('s'), text);
      await expectFreshFinds({ 'turn-1:0': 1, 'turn-5:0': 5, 'turn-9:0': undefined });
      expect(await fsStorage({ root }).sessions.read('s')).toHaveLength(5);
      // The rebuild rewrote a good index.
      const counting = countingFs('events.jsonl');
      await expectFreshFinds({ 'turn-3:0': 3 }, counting.fs);
      expect(counting.bytesRead()).toBeLessThan((await stat(eventsFile('s'))).size);
    }
  });

  it('a log cut below what the index covers (torn-tail recovery) gives correct results', async () => {
    await fiveEvents();
    const lines = (await readFile(eventsFile('s'), 'utf8')).split('\n');
    const keep = lines.slice(0, 3).join('\n').length + 1;
    await truncate(eventsFile('s'), keep + 10); // e4 torn, e5 gone
    await expectFreshFinds({ 'turn-3:0': 3, 'turn-4:0': undefined, 'turn-5:0': undefined });
    expect((await stat(eventsFile('s'))).size).toBe(keep);
    const [next] = await fsStorage({ root }).sessions.append('s', [draft(40, 'turn-4:0')]);
    expect(next?.id).toBe('e4');
    await expectFreshFinds({ 'turn-4:0': 40 });
  });

  it('findLatest never returns a wrong event when the index points at a wrong line', async () => {
    await fiveEvents();
    const good = await readFile(indexFile('s'), 'utf8');
    const lies = [
      good.replace('"turn-1:0"', '"turn-X"').replace('"turn-2:0"', '"turn-1:0"').replace('"turn-X"', '"turn-2:0"'), // keys swapped
      good.replace(/"lengths":\[(\d+),(\d+)/, (_, a, b) => `"lengths":[${Number(a) + 7},${Number(b) - 7}`), // offsets shifted
      good.replace('"ids":["e1","e2"', '"ids":["e2","e1"'), // ids swapped
    ];
    expect(new Set(lies).size).toBe(3);
    for (const lie of lies) {
      expect(lie).not.toBe(good);
      await writeFile(indexFile('s'), lie);
      await expectFreshFinds({ 'turn-1:0': 1, 'turn-2:0': 2, 'turn-5:0': 5 });
      await writeFile(indexFile('s'), lie);
      const sessions = fsStorage({ root }).sessions;
      expect((await sessions.read('s', { afterId: 'e1' })).map((event) => event.id)).toEqual(['e2', 'e3', 'e4', 'e5']);
      await writeFile(indexFile('s'), lie);
      await fsStorage({ root }).sessions.branch('s', 'e2', `b${lies.indexOf(lie)}`);
      expect((await fsStorage({ root }).sessions.read(`b${lies.indexOf(lie)}`)).map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }]);
    }
  });

  it('a log replaced by another one (same folder) is never read through the old index', async () => {
    await fiveEvents();
    const oldIndex = await readFile(indexFile('s'));
    await rm(join(root, 'sessions', 's'), { recursive: true, force: true });
    const { sessions } = fsStorage({ root });
    await sessions.append('s', [draft(10, 'turn-2:0'), draft(20, 'turn-1:0'), newEvent('test/pad', { pad: 'x'.repeat(50) })]);
    await writeFile(indexFile('s'), oldIndex);
    await expectFreshFinds({ 'turn-1:0': 20, 'turn-2:0': 10, 'turn-5:0': undefined });
  });

  it('several instances appending in turn keep one consistent index; a failed index write never fails an append', async () => {
    const a = fsStorage({ root }).sessions;
    const b = fsStorage({ root }).sessions;
    await a.append('s', [draft(1)]);
    await b.append('s', [draft(2)]);
    await a.append('s', [draft(3), draft(4)]);
    const brokenIndex: StorageFs = {
      ...nodeStorageFs,
      write: async (fd, buffer, offset, length, position) => {
        // Events append fine; the index segment is torn, then the disk "fills".
        if (Buffer.from(buffer).subarray(offset, offset + 8).toString() === '{"from":') {
          await nodeStorageFs.write(fd, buffer, offset, Math.floor(length / 2), position);
          throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        }
        return nodeStorageFs.write(fd, buffer, offset, length, position);
      },
    };
    const c = fsStorage({ root, fs: brokenIndex }).sessions;
    expect((await c.append('s', [draft(5)]))[0]?.id).toBe('e5');
    await b.append('s', [draft(6)]);
    await expectFreshFinds({ 'turn-1:0': 1, 'turn-4:0': 4, 'turn-5:0': 5, 'turn-6:0': 6 });
    const counting = countingFs('events.jsonl');
    await expectFreshFinds({ 'turn-6:0': 6 }, counting.fs);
    expect(counting.bytesRead()).toBeLessThan((await stat(eventsFile('s'))).size / 2);
  });

  it('branch and import write an index for the new session', async () => {
    await fiveEvents();
    const sessions = fsStorage({ root }).sessions;
    await sessions.branch('s', 'e4', 'child');
    await sessions.import('copy', await sessions.export('s'));
    for (const [id, n] of [
      ['child', 4],
      ['copy', 5],
    ] as const) {
      expect(await readFile(join(root, 'sessions', id, 'index.jsonl'), 'utf8')).toContain(`"turn-${n}:0"`);
      const counting = countingFs('events.jsonl');
      const found = await fsStorage({ root, fs: counting.fs }).sessions.findLatest(id, { type: 'story/draft', key: `turn-${n}:0` });
      expect(found).toMatchObject({ id: `e${n}`, sessionId: id, data: { n } });
      const line = (await readFile(join(root, 'sessions', id, 'events.jsonl'), 'utf8')).split('\n')[n - 1] ?? '';
      expect(counting.bytesRead()).toBeLessThanOrEqual(2 * (Buffer.byteLength(line) + 1) + 1); // the fingerprint line, the hit and the byte before it
    }
  });
});
