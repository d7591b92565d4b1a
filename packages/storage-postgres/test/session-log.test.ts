import { newEvent } from '@troupe/kernel/contracts';
import { expect, it } from 'vitest';
import { asAdmin, codeOf, describePg, freshStorage } from './helpers.js';

describePg('PgSessionLog beyond the contract', () => {
  it('finds keys exactly, whatever characters they hold, through the (type, key) index', async () => {
    const storage = await freshStorage();
    try {
      const keys = ["it's", 'a\u0000b', '"quoted"', '雾港:1', 'x'.repeat(512)];
      await storage.sessions.append('s', keys.map((key, index) => newEvent('story/draft', { index }, { key })));
      for (const [index, key] of keys.entries()) expect((await storage.sessions.findLatest('s', { type: 'story/draft', key }))?.data).toEqual({ index });
      expect(await storage.sessions.findLatest('s', { type: 'story/draft', key: 'a' })).toBeUndefined();
      // The lookup is an index probe, not a scan of the session.
      await storage.sessions.append('s', Array.from({ length: 3000 }, (_, n) => newEvent('story/draft', {}, { key: `k${n}` })));
      const plan = await asAdmin(async (admin) => {
        await admin.query(`ANALYZE "${storage.schema}".troupe_session_events`);
        const result = await admin.query(
          `EXPLAIN SELECT seq, body FROM "${storage.schema}".troupe_session_events WHERE session_id = $1 AND type = $2 AND lookup_key = $3 ORDER BY position DESC LIMIT 1`,
          ['s', 'story/draft', JSON.stringify('k17')],
        );
        return result.rows.map((row: Record<string, string>) => Object.values(row)[0]).join('\n');
      });
      expect(plan).toContain('troupe_session_events_by_key');
    } finally {
      await storage.cleanup();
    }
  });

  it('readTyped reads the newest events of a type through the (type, position) index and counts the rest', async () => {
    const storage = await freshStorage();
    try {
      const events = Array.from({ length: 3000 }, (_, n) => newEvent(n % 100 === 0 ? 'kernel/turn-committed' : 'story/stage-request', { n }));
      await storage.sessions.append('s', events);
      const window = await storage.sessions.readTyped('s', { types: ['kernel/turn-committed'], limit: 4 });
      expect(window.events.map((event) => (event.data as { n: number }).n)).toEqual([2600, 2700, 2800, 2900]);
      expect(window.earlier).toBe(26);
      const plan = await asAdmin(async (admin) => {
        await admin.query(`ANALYZE "${storage.schema}".troupe_session_events`);
        const result = await admin.query(
          `EXPLAIN SELECT position, seq, body FROM "${storage.schema}".troupe_session_events WHERE session_id = $1 AND type = $2 AND position > $3 AND ($4::bigint IS NULL OR position < $4) ORDER BY position DESC LIMIT $5`,
          ['s', 'kernel/turn-committed', -1, null, 4],
        );
        return result.rows.map((row: Record<string, string>) => Object.values(row)[0]).join('\n');
      });
      expect(plan).toContain('troupe_session_events_by_type');
    } finally {
      await storage.cleanup();
    }
  });

  it('imports keep the export order and ids, even when ids are not increasing', async () => {
    const storage = await freshStorage();
    try {
      const lines = [
        { ...newEvent('test/a'), id: 'e5', sessionId: 'old' },
        { ...newEvent('test/b'), id: 'e2', sessionId: 'old' },
        { ...newEvent('test/c', { x: 1 }), id: 'e9', sessionId: 'old' },
      ];
      await storage.sessions.import('copy', lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      expect((await storage.sessions.read('copy')).map((event) => event.id)).toEqual(['e5', 'e2', 'e9']);
      expect((await storage.sessions.read('copy', { afterId: 'e2' })).map((event) => event.id)).toEqual(['e9']);
      expect((await storage.sessions.append('copy', [newEvent('test/d')]))[0]?.id).toBe('e10');
    } finally {
      await storage.cleanup();
    }
  });

  it('exports lines with the filesystem store field order', async () => {
    const storage = await freshStorage();
    try {
      await storage.sessions.append('s', [{ data: { b: 1, a: 2 }, key: 'k', at: '2026-01-01T00:00:00.000Z', ignorable: false, type: 'test/a', step: 0, turnId: 't1' }]);
      expect(await storage.sessions.export('s')).toBe(
        '{"id":"e1","sessionId":"s","turnId":"t1","step":0,"type":"test/a","ignorable":false,"at":"2026-01-01T00:00:00.000Z","key":"k","data":{"b":1,"a":2}}\n',
      );
    } finally {
      await storage.cleanup();
    }
  });

  it('reports a row damaged in the database as SESSION_CORRUPT, salvages the rest; delete removes the session', async () => {
    const storage = await freshStorage();
    try {
      await storage.sessions.append('s', [newEvent('test/a'), newEvent('test/b')]);
      await asAdmin((admin) => admin.query(`UPDATE "${storage.schema}".troupe_session_events SET body = '{"not":"an event"}' WHERE seq = 2`));
      expect(await codeOf(storage.sessions.read('s'))).toBe('SESSION_CORRUPT');
      const salvaged = await storage.sessions.salvage('s');
      expect(salvaged.skippedLines).toEqual([2]);
      expect(salvaged.jsonl.trimEnd().split('\n').map((line) => JSON.parse(line).id)).toEqual(['e1']);
      expect(await storage.sessions.delete('s')).toBe(true);
      expect(await storage.sessions.delete('s')).toBe(false);
      expect(await storage.sessions.list()).toEqual([]);
    } finally {
      await storage.cleanup();
    }
  });
});
