import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newEvent } from '@troupe/kernel/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { codeOf, tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

describe('damaged items stay removable and rescuable', () => {
  it('a damaged session log: every intact event can be exported, the bad lines are reported, and it can be deleted', async () => {
    const { sessions } = fsStorage({ root });
    await sessions.append('s', [newEvent('test/a', { n: 1 }), newEvent('test/b', { n: 2 })]);
    const log = join(root, 'sessions', 's', 'events.jsonl');
    const [first, second] = (await readFile(log, 'utf8')).split('\n');
    // A hand edit breaks line 2; a later event follows; a torn line ends the file.
    await writeFile(log, `${first}\n{"broken": \n${second?.replace('"e2"', '"e3"')}\n{"id":"e4"`);
    expect(await codeOf(fsStorage({ root }).sessions.read('s'))).toBe('SESSION_CORRUPT');
    const rescued = await fsStorage({ root }).sessions.salvage('s');
    expect(rescued.skippedLines).toEqual([2, 4]);
    expect(rescued.jsonl.split('\n').filter(Boolean).map((line) => JSON.parse(line).id)).toEqual(['e1', 'e3']);
    expect(await readFile(log, 'utf8')).toContain('{"broken": '); // salvage never repairs in place
    const other = fsStorage({ root }).sessions;
    await other.append('ok', [newEvent('test/a')]);
    expect(await other.list()).toEqual(['ok', 's']);
    expect(await other.delete('s')).toBe(true);
    expect(await other.delete('s')).toBe(false);
    expect(await other.list()).toEqual(['ok']);
    expect((await other.read('ok')).length).toBe(1);
  });

  it('a workspace with a damaged record.json is still listed and can be deleted', async () => {
    const { trees } = fsStorage({ root });
    await trees.create('bad', { 'a.md': 'A' });
    await trees.create('good', { 'a.md': 'A' });
    await appendFile(join(root, 'story-workspaces', 'bad', '.troupe', 'record.json'), 'garbage');
    expect(await codeOf(trees.read('bad'))).toBe('TREE_CORRUPT');
    expect(await trees.list()).toEqual(['bad', 'good']);
    expect(await trees.delete('bad')).toBe(true);
    expect(await trees.list()).toEqual(['good']);
    expect((await trees.read('good')).revision).toBe(1);
  });
});
