import { execFile, fork } from 'node:child_process';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { newEvent } from '@troupe/kernel/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage, nodeStorageFs, type StorageFs } from '../src/index.js';
import { childEnv, codeOf, tempRoot } from './helpers.js';

const run = promisify(execFile);
const fixture = join(import.meta.dirname, 'fixtures', 'append-loop.mjs');
const KILLS = process.env.STRESS === '1' ? 60 : 15;

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

const eventsFile = (sessionId: string) => join(root, 'sessions', sessionId, 'events.jsonl');

describe('JSON Lines session log on disk', () => {
  it('truncates a torn last line on open, keeps every earlier line, and appends after it', async () => {
    const { sessions } = fsStorage({ root });
    await sessions.append('s', [newEvent('test/a', { n: 1 }), newEvent('test/b', { n: 2 })]);
    const intact = await readFile(eventsFile('s'), 'utf8');
    await appendFile(eventsFile('s'), '{"id":"e3","sessionId":"s","turnId":"t1","st');
    const reopened = fsStorage({ root }).sessions;
    expect((await reopened.read('s')).map((event) => event.id)).toEqual(['e1', 'e2']);
    expect(await readFile(eventsFile('s'), 'utf8')).toBe(intact);
    const [next] = await reopened.append('s', [newEvent('test/c')]);
    expect(next?.id).toBe('e3');
    expect((await reopened.read('s')).map((event) => event.type)).toEqual(['test/a', 'test/b', 'test/c']);
  });

  it('append returns exactly what reading its lines back returns, and a copy of it', async () => {
    const { sessions } = fsStorage({ root });
    const data = { text: 'Lia 莉娅 \ud83d\ude00 "quoted"\n', lone: '\ud800', nested: { list: [1, -0, 2.5, null, true], empty: {} }, dropped: undefined };
    const batch = [newEvent('test/a', data, { key: 'k1', step: -0 }), newEvent('test/b', 'plain'), newEvent('test/c', [data])];
    const appended = await sessions.append('s', batch);
    const reopened = await fsStorage({ root }).sessions.read('s');
    expect(appended).toStrictEqual(reopened);
    expect(appended.map((event) => Object.keys(event))).toEqual(reopened.map((event) => Object.keys(event)));
    expect(Object.is(appended[0]?.step, 0)).toBe(true);
    // Nothing is shared with the caller's objects or with what is stored.
    (data.nested.list as unknown[]).push('later');
    expect(appended[0]?.data).toStrictEqual(reopened[0]?.data);
    const [firstAppended] = appended as readonly { data: { text: string } }[];
    if (firstAppended) firstAppended.data.text = 'changed';
    const [firstRead] = (await sessions.read('s')) as readonly { data: { text: string } }[];
    expect(firstRead?.data.text).toBe(data.text);
    // Like any event handed out, its data can be replaced.
    const first = appended[0] as { data: unknown };
    first.data = 'replaced';
    expect(first.data).toBe('replaced');
  });

  it('reports a damaged inner line as SESSION_CORRUPT (never silently skipped)', async () => {
    const { sessions } = fsStorage({ root });
    await sessions.append('s', [newEvent('test/a'), newEvent('test/b')]);
    const lines = (await readFile(eventsFile('s'), 'utf8')).split('\n');
    await writeFile(eventsFile('s'), [lines[0], '{broken', ''].join('\n'));
    expect(await codeOf(fsStorage({ root }).sessions.read('s'))).toBe('SESSION_CORRUPT');
  });

  it('appends a batch all or nothing when the disk fills mid-write', async () => {
    const { sessions } = fsStorage({ root });
    await sessions.append('s', [newEvent('test/a')]);
    const before = await readFile(eventsFile('s'));
    let calls = 0;
    const full: StorageFs = {
      ...nodeStorageFs,
      write: async (fd, buffer, offset, length, position) => {
        calls += 1;
        if (calls === 1) return nodeStorageFs.write(fd, buffer, offset, Math.floor(length / 2), position);
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      },
    };
    const failing = fsStorage({ root, fs: full }).sessions;
    expect(await codeOf(failing.append('s', [newEvent('test/b', { big: 'x'.repeat(10_000) }), newEvent('test/c')]))).toBe('STORAGE_IO');
    expect(await readFile(eventsFile('s'))).toEqual(before);
    expect((await sessions.append('s', [newEvent('test/d')]))[0]?.id).toBe('e2');
  });

  it(`SIGKILL during appends of 100–400 KB lines (${KILLS} kills): 0 damaged earlier lines`, async () => {
    let tornTails = 0;
    let events = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      const child = fork(fixture, [root, 'append', 'big'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [], env: childEnv() });
      await new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`fixture exited early with ${code}`)));
      });
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 40));
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const raw = await readFile(eventsFile('big'), 'utf8').catch(() => '');
      if (raw.length > 0 && !raw.endsWith('\n')) tornTails += 1;
      const read = await fsStorage({ root }).sessions.read('big'); // throws SESSION_CORRUPT on a damaged inner line
      expect(read.map((event) => event.id)).toEqual(read.map((_, index) => `e${index + 1}`));
      events = read.length;
    }
    expect(events).toBeGreaterThan(0);
    console.info(`jsonl kills: ${KILLS}, torn tails recovered: ${tornTails}, events intact: ${events}`);
  }, 120_000);

  it('export and branch give byte-identical results in this process and in a fresh one; the parent is untouched', async () => {
    const { sessions } = fsStorage({ root });
    await sessions.append('s', [newEvent('test/a', { text: '莉娅 ✓' }, { key: 'k1' }), newEvent('test/b', { n: 2 })]);
    await sessions.append('s', [newEvent('test/c', { nested: { deep: [1, 2, 3] } }, { key: 'k1' })]);
    const parentBytes = await readFile(eventsFile('s'));
    const here = await sessions.export('s');
    const fresh = await run(process.execPath, [fixture, root, 'export', 's'], { env: childEnv() });
    expect(fresh.stdout).toBe(here);
    const branchedFresh = await run(process.execPath, [fixture, root, 'branch', 's', 'e2', 'child-a'], { env: childEnv() });
    await sessions.branch('s', 'e2', 'child-b');
    const branchedHere = await sessions.export('child-b');
    expect(branchedFresh.stdout.replaceAll('"child-a"', '"child-b"')).toBe(branchedHere);
    expect(await readFile(eventsFile('s'))).toEqual(parentBytes);
    expect((await sessions.append('child-a', [newEvent('test/d')]))[0]?.id).toBe('e4');
    expect(await fsStorage({ root }).sessions.list()).toEqual(['child-a', 'child-b', 's']);
  });

  it('finds (type, key) after a reopen and sees events appended by another instance', async () => {
    const writer = fsStorage({ root }).sessions;
    const reader = fsStorage({ root }).sessions;
    await writer.append('s', [newEvent('story/draft', { v: 1 }, { key: 'k' })]);
    expect((await reader.findLatest('s', { type: 'story/draft', key: 'k' }))?.data).toEqual({ v: 1 });
    await writer.append('s', [newEvent('story/draft', { v: 2 }, { key: 'k' })]);
    expect((await reader.findLatest('s', { type: 'story/draft', key: 'k' }))?.data).toEqual({ v: 2 });
  });
});
