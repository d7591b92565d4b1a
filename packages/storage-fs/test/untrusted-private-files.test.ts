import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newEvent } from '@troupe/kernel/contracts';
import { snapshotOutside } from '@troupe/kernel/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { MAX_APPEND_CHARS, MAX_INLINE_WRITE_CHARS } from '../src/tree/tree-record.js';
import { codeOf } from './helpers.js';

// A workspace or session folder copied from somewhere else (a zip, a sync folder, a git clone)
// brings its store-private files with it: they are input, and must never reach outside the data dir.

let base: string;
let data: string;
let outside: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'troupe-escape-'));
  data = join(base, 'data');
  outside = join(base, 'outside');
  await mkdir(join(outside, 'deep', 'er'), { recursive: true });
  await writeFile(join(outside, 'victim.txt'), 'precious');
  await writeFile(join(outside, 'deep', 'er', 'payload'), 'planted content');
});
afterEach(() => rm(base, { recursive: true, force: true }));

const meta = (id: string) => join(data, 'story-workspaces', id, '.troupe');
// From <data>/story-workspaces/<id>/ up to <base>.
const up = '../../..';

const intent = (fields: Record<string, unknown>) =>
  JSON.stringify({ format: 1, revision: 2, writes: [], appends: [], files: { 'a.md': null }, settled: null, ...fields });

const craftedIntents: [string, () => string][] = [
  ['deletes a file outside', () => intent({ writes: [{ path: `${up}/outside/victim.txt`, stage: null }] })],
  ['moves a file from outside in (stage escapes .troupe)', () => intent({ writes: [{ path: 'a.md', stage: `../${up}/outside/deep/er/payload` }] })],
  ['writes into a path outside', () => intent({ writes: [{ path: `${up}/outside/new.txt`, stage: '.troupe-tmp-1-000000000000' }] })],
  ['appends to a file outside', () => intent({ appends: [{ path: `${up}/outside/victim.txt`, baseSize: 0, text: 'pwned' }] })],
  ['creates a file outside by appending', () => intent({ appends: [{ path: `${up}/outside/created.txt`, baseSize: 0, text: 'x' }] })],
  ['truncates through an absolute path', () => intent({ appends: [{ path: join(outside, 'victim.txt'), baseSize: 0, text: '' }] })],
  ['records an outside file', () => intent({ files: { [`${up}/outside/victim.txt`]: null } })],
  ['carries a stage that is not a temp name', () => intent({ writes: [{ path: 'a.md', stage: 'record.json' }] })],
  ['carries a huge append', () => intent({ appends: [{ path: 'a.md', baseSize: 0, text: 'x'.repeat(MAX_APPEND_CHARS + 1) }] })],
  ['writes a carried text into a path outside', () => intent({ writes: [{ path: `${up}/outside/victim.txt`, content: 'pwned' }] })],
  ['carries a file text over its limit', () => intent({ writes: [{ path: 'a.md', content: 'x'.repeat(MAX_INLINE_WRITE_CHARS + 1) }] })],
];

describe('store-private files are untrusted input', () => {
  for (const [what, body] of craftedIntents) {
    it(`an intent.json that ${what} → TREE_CORRUPT naming the file, nothing touched`, async () => {
      const { trees } = fsStorage({ root: data });
      await trees.create('s', { 'a.md': 'A' });
      await writeFile(join(meta('s'), 'intent.json'), body());
      const before = await snapshotOutside(base, data);
      const error = (await trees.read('s').catch((caught: unknown) => caught)) as { code?: string; message?: string };
      expect(error.code).toBe('TREE_CORRUPT');
      expect(error.message).toContain(join(meta('s'), 'intent.json'));
      expect(await snapshotOutside(base, data)).toEqual(before);
      expect(await readFile(join(data, 'story-workspaces', 's', 'a.md'), 'utf8')).toBe('A');
      // The workspace stays deletable, and the rest of the data dir usable.
      expect(await trees.list()).toEqual(['s']);
      expect(await trees.delete('s')).toBe(true);
      expect(await snapshotOutside(base, data)).toEqual(before);
    });
  }

  it('an intent whose valid path goes through a folder the player replaced by a symlink → TREE_CORRUPT, nothing touched', async () => {
    const { trees } = fsStorage({ root: data });
    await trees.create('s', { 'a.md': 'A' });
    await symlink(join(outside, 'deep'), join(data, 'story-workspaces', 's', 'notes'));
    await writeFile(join(meta('s'), 'intent.json'), intent({ writes: [{ path: 'notes/er/payload', stage: null }], appends: [{ path: 'notes/x.md', baseSize: 0, text: 'x' }] }));
    const before = await snapshotOutside(base, data);
    expect(await codeOf(trees.read('s'))).toBe('TREE_CORRUPT');
    expect(await snapshotOutside(base, data)).toEqual(before);
  });

  it('a record.json naming a file outside is refused, its content never returned', async () => {
    await writeFile(join(outside, 'secret.txt'), 'the neighbour diary');
    const { trees } = fsStorage({ root: data });
    await trees.create('s', { 'a.md': 'A' });
    const record = JSON.parse(await readFile(join(meta('s'), 'record.json'), 'utf8'));
    record.files[`${up}/outside/secret.txt`] = { sha256: null, signature: 'x' };
    await writeFile(join(meta('s'), 'record.json'), JSON.stringify(record));
    const before = await snapshotOutside(base, data);
    const error = (await trees.read('s').catch((caught: unknown) => caught)) as { code?: string; message?: string };
    expect(error.code).toBe('TREE_CORRUPT');
    expect(error.message).toContain('record.json');
    expect(JSON.stringify(error)).not.toContain('neighbour');
    expect(await codeOf(trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'B' } }))).toBe('TREE_CORRUPT');
    expect(await snapshotOutside(base, data)).toEqual(before);
  });

  it('a settled.jsonl line that is not a marker record → TREE_CORRUPT naming the file', async () => {
    const { trees } = fsStorage({ root: data });
    await trees.create('s', { 'history.md': '# H\n' });
    await writeFile(join(meta('s'), 'settled.jsonl'), `${JSON.stringify({ marker: '../x', digest: 'no', revision: -1 })}\n`);
    const error = (await trees.settle('s', { marker: 't1', appends: { 'history.md': 'x' } }).catch((caught: unknown) => caught)) as { code?: string; message?: string };
    expect(error.code).toBe('TREE_CORRUPT');
    expect(error.message).toContain('settled.jsonl');
  });

  it('a .troupe folder that is a symlink is refused: no lock, temp or record is written through it', async () => {
    const { trees } = fsStorage({ root: data });
    await trees.create('s', { 'a.md': 'A' });
    await rm(meta('s'), { recursive: true });
    await mkdir(join(outside, 'meta'));
    await symlink(join(outside, 'meta'), meta('s'));
    const before = await snapshotOutside(base, data);
    expect(await codeOf(trees.read('s'))).toBe('TREE_CORRUPT');
    expect(await codeOf(trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'B' } }))).toBe('TREE_CORRUPT');
    expect(await codeOf(trees.settle('s', { marker: 't1', appends: { 'a.md': 'x' } }))).toBe('TREE_CORRUPT');
    expect(await snapshotOutside(base, data)).toEqual(before);
    expect(await trees.delete('s')).toBe(true);
    expect(await snapshotOutside(base, data)).toEqual(before);
  });

  it('a sessions/<id> folder that is a symlink is refused for every operation, exactly like a workspace', async () => {
    await mkdir(join(data, 'sessions'), { recursive: true });
    await mkdir(join(outside, 'session'));
    await writeFile(join(outside, 'session', 'events.jsonl'), `${JSON.stringify({ ...newEvent('test/a'), id: 'e1', sessionId: 'linked' })}\n`);
    await symlink(join(outside, 'session'), join(data, 'sessions', 'linked'));
    const { sessions } = fsStorage({ root: data });
    const before = await snapshotOutside(base, data);
    expect(await codeOf(sessions.append('linked', [newEvent('test/b')]))).toBe('SESSION_CORRUPT');
    expect(await codeOf(sessions.read('linked'))).toBe('SESSION_CORRUPT');
    expect(await codeOf(sessions.findLatest('linked', { type: 'test/a', key: 'k' }))).toBe('SESSION_CORRUPT');
    expect(await codeOf(sessions.branch('linked', 'e1', 'copy'))).toBe('SESSION_CORRUPT');
    expect(await codeOf(sessions.export('linked'))).toBe('SESSION_CORRUPT');
    expect(await snapshotOutside(base, data)).toEqual(before);
    // It is still listed (so a UI can show and remove it), and deleting removes only the link.
    expect(await sessions.list()).toEqual(['linked']);
    expect(await sessions.delete('linked')).toBe(true);
    expect(await sessions.list()).toEqual([]);
    expect(await snapshotOutside(base, data)).toEqual(before);
  });

  it('a symlinked events.jsonl or session.json inside a real session folder is never followed', async () => {
    const { sessions } = fsStorage({ root: data });
    await sessions.append('s', [newEvent('test/a')]);
    const dir = join(data, 'sessions', 's');
    await rm(join(dir, 'session.json'), { force: true });
    await symlink(join(outside, 'victim.txt'), join(dir, 'session.json'));
    const before = await snapshotOutside(base, data);
    await sessions.append('s', [newEvent('test/b')]).catch(() => undefined);
    await sessions.read('s').catch(() => undefined);
    await sessions.branch('s', 'e1', 'b2').catch(() => undefined);
    expect(await snapshotOutside(base, data)).toEqual(before);
  });
});
