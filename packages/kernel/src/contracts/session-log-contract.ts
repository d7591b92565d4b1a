import { describe, expect, it } from 'vitest';
import { codeOf, withFixture } from './contract-helpers.js';
import type { NewSessionEvent, SessionLog } from '../ports/session-log.js';

/** A log under test and how to clean it up. */
export interface SessionLogFixture {
  readonly log: SessionLog;
  readonly cleanup?: () => Promise<void>;
}

/**
 * Builds a valid new event for tests.
 * @param type - event type
 * @param data - payload
 * @param extra - overrides (turnId, key, …)
 */
export function newEvent(type: string, data: unknown = {}, extra: Partial<NewSessionEvent> = {}): NewSessionEvent {
  return { turnId: 't1', step: 0, type, ignorable: true, at: '2026-01-01T00:00:00.000Z', data, ...extra };
}

/**
 * The behaviour every {@link SessionLog} must have.
 * @param name - label for the describe block
 * @param make - creates a fresh, empty log per test
 */
export function describeSessionLogContract(name: string, make: () => Promise<SessionLogFixture>): void {
  describe(`SessionLog contract: ${name}`, () => {
    it('appends batches with increasing ids and reads them back in order', () =>
      withFixture(make, async ({ log }) => {
        const first = await log.append('s1', [newEvent('test/a', { n: 1 }), newEvent('test/b', { text: '莉娅' })]);
        const second = await log.append('s1', [newEvent('test/c')]);
        expect([...first, ...second].map((event) => event.id)).toEqual(['e1', 'e2', 'e3']);
        const read = await log.read('s1');
        expect(read.map((event) => event.type)).toEqual(['test/a', 'test/b', 'test/c']);
        expect(read[1]).toMatchObject({ sessionId: 's1', data: { text: '莉娅' } });
        expect((await log.read('s1', { afterId: 'e1' })).map((event) => event.id)).toEqual(['e2', 'e3']);
        expect(await log.read('empty')).toEqual([]);
        expect(await log.list()).toEqual(['s1']);
      }));

    it('rejects invalid events and ids without appending anything', () =>
      withFixture(make, async ({ log }) => {
        expect(await codeOf(log.append('s1', [newEvent('ok/fine'), newEvent('Bad Type')]))).toBe('SESSION_INVALID_EVENT');
        expect(await codeOf(log.append('s1', [newEvent('ok/fine', { n: 1n })]))).toBe('SESSION_INVALID_EVENT');
        expect(await codeOf(log.append('../s', [newEvent('ok/fine')]))).toBe('SESSION_INVALID_ID');
        expect(await codeOf(log.append('con', [newEvent('ok/fine')]))).toBe('SESSION_INVALID_ID');
        expect(await codeOf(log.append('s1', null as never))).toBe('SESSION_INVALID_EVENT');
        expect(await codeOf(log.append('s1', [null as never]))).toBe('SESSION_INVALID_EVENT');
        expect(await codeOf(log.findLatest('s1', null as never))).toBe('SESSION_INVALID_EVENT');
        expect(await codeOf(log.findLatest('s1', { type: 'a/b', key: '' }))).toBe('SESSION_INVALID_EVENT');
        expect(await codeOf(log.import('s2', 42 as never))).toBe('SESSION_INVALID_EVENT');
        expect(await log.read('s1')).toEqual([]);
        expect(await codeOf(log.read('s1', { afterId: 'e99' }))).toBe('SESSION_EVENT_NOT_FOUND');
      }));

    it('stores the JSON round trip of the data, and no caller can change what is stored', () =>
      withFixture(make, async ({ log }) => {
        const data = { when: new Date('2026-01-01T00:00:00.000Z'), gone: undefined, nan: Number.NaN, list: [1, undefined, { text: '雾' }] };
        const expected = JSON.parse(JSON.stringify(data)) as unknown;
        const [appended] = await log.append('s1', [newEvent('test/json', data, { key: 'k' })]);
        expect(appended?.data).toStrictEqual(expected);
        data.list.push({ text: 'input changed later' });
        (appended!.data as { list: unknown[] }).list.length = 0;
        const [read] = await log.read('s1');
        expect(read?.data).toStrictEqual(expected);
        (read!.data as { nan: unknown }).nan = 'read changed';
        expect((await log.findLatest('s1', { type: 'test/json', key: 'k' }))?.data).toStrictEqual(expected);
        expect(Object.keys((await log.read('s1'))[0] ?? {})).toEqual(['id', 'sessionId', 'turnId', 'step', 'type', 'ignorable', 'at', 'key', 'data']);
      }));

    it('finds the latest event by type and key', () =>
      withFixture(make, async ({ log }) => {
        await log.append('s1', [newEvent('story/draft', { v: 1 }, { key: 'k1' }), newEvent('story/draft', { v: 2 }, { key: 'k2' })]);
        await log.append('s1', [newEvent('story/draft', { v: 3 }, { key: 'k1' })]);
        expect((await log.findLatest('s1', { type: 'story/draft', key: 'k1' }))?.data).toEqual({ v: 3 });
        expect(await log.findLatest('s1', { type: 'story/draft', key: 'nope' })).toBeUndefined();
        expect(await log.findLatest('s1', { type: 'other/type', key: 'k1' })).toBeUndefined();
      }));

    it('branches up to an event without touching the parent', () =>
      withFixture(make, async ({ log }) => {
        await log.append('s1', [newEvent('test/a', {}, { key: 'ka' }), newEvent('test/b'), newEvent('test/c')]);
        const parentBefore = await log.export('s1');
        await log.branch('s1', 'e2', 's2');
        expect((await log.read('s2')).map((event) => [event.id, event.sessionId])).toEqual([
          ['e1', 's2'],
          ['e2', 's2'],
        ]);
        expect((await log.findLatest('s2', { type: 'test/a', key: 'ka' }))?.id).toBe('e1');
        const appended = await log.append('s2', [newEvent('test/d')]);
        expect(appended[0]?.id).toBe('e4');
        expect(await log.export('s1')).toBe(parentBefore);
        expect(await codeOf(log.branch('s1', 'e2', 's2'))).toBe('SESSION_EXISTS');
        expect(await codeOf(log.branch('s1', 'e42', 's3'))).toBe('SESSION_EVENT_NOT_FOUND');
      }));

    it('exports JSON Lines and imports them into a new session', () =>
      withFixture(make, async ({ log }) => {
        await log.append('s1', [newEvent('test/a', { x: '雾' }, { key: 'k' }), newEvent('test/b')]);
        const exported = await log.export('s1');
        expect(exported.endsWith('\n')).toBe(true);
        expect(exported.trimEnd().split('\n')).toHaveLength(2);
        await log.import('copy', exported);
        expect((await log.read('copy')).map((event) => [event.id, event.sessionId, event.type])).toEqual([
          ['e1', 'copy', 'test/a'],
          ['e2', 'copy', 'test/b'],
        ]);
        expect((await log.findLatest('copy', { type: 'test/a', key: 'k' }))?.data).toEqual({ x: '雾' });
        expect((await log.append('copy', [newEvent('test/c')]))[0]?.id).toBe('e3');
        expect(await codeOf(log.import('copy', exported))).toBe('SESSION_EXISTS');
        expect(await codeOf(log.import('broken', '{not json}\n'))).toBe('SESSION_INVALID_EVENT');
        expect(await log.read('broken')).toEqual([]);
      }));

    it('reads by type (optional readTyped): only matching events, the latest `limit`, paged with beforeId/afterId, also after branch and import', () =>
      withFixture(make, async ({ log }) => {
        if (!log.readTyped) return;
        const batch = [];
        for (let n = 1; n <= 30; n++) batch.push(newEvent(n % 3 === 0 ? 'test/keep' : 'test/noise', { n, big: n % 3 === 0 ? '' : 'x'.repeat(200) }, n % 5 === 0 ? { key: `k${n}` } : {}));
        await log.append('s1', batch.slice(0, 10));
        await log.append('s1', batch.slice(10));
        const all = await log.readTyped('s1', { types: ['test/keep'] });
        expect(all.events.map((event) => (event.data as { n: number }).n)).toEqual([3, 6, 9, 12, 15, 18, 21, 24, 27, 30]);
        expect(all.earlier).toBe(0);
        const latest = await log.readTyped('s1', { types: ['test/keep', 'test/other'], limit: 3 });
        expect(latest.events.map((event) => event.id)).toEqual(['e24', 'e27', 'e30']);
        expect(latest.earlier).toBe(7);
        const page = await log.readTyped('s1', { types: ['test/keep'], limit: 2, beforeId: 'e24' });
        expect(page.events.map((event) => event.id)).toEqual(['e18', 'e21']);
        expect(page.earlier).toBe(5);
        expect((await log.readTyped('s1', { types: ['test/keep'], afterId: 'e25' })).events.map((event) => event.id)).toEqual(['e27', 'e30']);
        expect((await log.readTyped('s1', { types: ['test/keep'], limit: 0 })).earlier).toBe(10);
        expect(await log.readTyped('none', { types: ['test/keep'] })).toEqual({ events: [], earlier: 0 });
        expect(await codeOf(log.readTyped('s1', { types: ['test/keep'], afterId: 'e99' }))).toBe('SESSION_EVENT_NOT_FOUND');
        expect(await codeOf(log.readTyped('s1', { types: [] }))).toBe('SESSION_INVALID_EVENT');
        await log.branch('s1', 'e20', 'b1');
        expect((await log.readTyped('b1', { types: ['test/keep'], limit: 2 })).events.map((event) => event.id)).toEqual(['e15', 'e18']);
        await log.import('i1', await log.export('s1'));
        await log.append('i1', [newEvent('test/keep', { n: 31 })]);
        expect((await log.readTyped('i1', { types: ['test/keep'], limit: 2 })).events.map((event) => event.id)).toEqual(['e30', 'e31']);
      }));
  });
}
