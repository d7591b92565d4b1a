import { describe, expect, it } from 'vitest';
import { MAX_CACHED_SESSIONS } from '../src/session/locked-sessions.js';
import { MAX_CACHED_TREES } from '../src/tree/fs-tree-store.js';
import { tempStorage } from './helpers.js';

const at = '2026-01-01T00:00:00.000Z';

describe('per-session and per-tree state is bounded (least recently used dropped) without losing anything', () => {
  it('a session or tree dropped from the cache reads back exactly from disk', async () => {
    const { sessions, trees, cleanup } = await tempStorage();
    try {
      const count = Math.max(MAX_CACHED_SESSIONS, MAX_CACHED_TREES) + 6;
      for (let n = 0; n < count; n++) {
        await sessions.append(`s${n}`, [{ turnId: 't', step: 0, type: 'test/a', ignorable: true, at, key: 'k', data: { n } }]);
        await trees.create(`w${n}`, { 'history.md': '' });
        await trees.settle(`w${n}`, { marker: 'story:t1', appends: { 'history.md': `turn of ${n}` } });
      }
      // s0 and w0 were dropped long ago: everything comes back from the files.
      expect((await sessions.findLatest('s0', { type: 'test/a', key: 'k' }))?.data).toEqual({ n: 0 });
      expect((await sessions.append('s0', [{ turnId: 't', step: 0, type: 'test/b', ignorable: true, at, data: {} }]))[0]?.id).toBe('e2');
      expect((await sessions.readTyped('s0', { types: ['test/a', 'test/b'] })).events.map((e) => e.id)).toEqual(['e1', 'e2']);
      // The settle marker of a dropped tree is still known: a retry writes nothing.
      expect((await trees.settle('w0', { marker: 'story:t1', appends: { 'history.md': 'turn of 0' } })).applied).toBe(false);
      expect((await trees.read('w0')).files['history.md']).toContain('turn of 0');
    } finally {
      await cleanup();
    }
  });
});
