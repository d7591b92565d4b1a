import { KernelStorageError, type NewSessionEvent } from '@troupe/kernel';
import { copyNewEvents, serializeNewEvents, storedEventJson, validateNewEvents } from '@troupe/kernel/storage';
import { MemorySessionLog } from '@troupe/kernel/testing';
import { freezeJson } from '@troupe/kernel/util';
import { describe, expect, it } from 'vitest';

const at = '2026-12-01T00:00:00.000Z';
const event = (data: unknown, extra: Partial<NewSessionEvent> = {}): NewSessionEvent => ({ turnId: 't1', step: 0, type: 'test/data', ignorable: true, at, data, ...extra });

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

// Values whose JSON round trip is not the value itself: what a store keeps must be that round trip.
const tricky: Record<string, () => unknown> = {
  'nested undefined, functions and symbols': () => ({ a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1, Symbol('t')], e: 1 }),
  'non-finite numbers and -0': () => ({ nan: Number.NaN, inf: Number.POSITIVE_INFINITY, neg: -0, list: [Number.NaN, -0, 1.5] }),
  // biome-ignore lint/suspicious/noSparseArray: a hole is what this case is about
  'array holes': () => [1, , 3],
  'dates and toJSON': () => ({ when: new Date(at), custom: { toJSON: (key: string) => `custom:${key}` }, list: [new Date(0)] }),
  'maps, sets, class instances and boxed primitives': () => ({ map: new Map([[1, 2]]), set: new Set([1]), point: new Point(1, 2), text: new String('boxed'), flag: new Boolean(false) }),
  'an own __proto__ key': () => JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}'),
  'null-prototype objects and symbol keys': () => Object.assign(Object.create(null), { a: 1, [Symbol('hidden')]: 2 }),
  'deep nesting past the walk': () => {
    let value: unknown = 'leaf';
    for (let depth = 0; depth < 200; depth++) value = { depth, value };
    return value;
  },
  'shared sub-objects': () => {
    const shared = { long: '酒馆'.repeat(40) };
    return { first: shared, second: shared, list: [shared, shared] };
  },
  'long, sliced and concatenated strings': () => {
    const whole = `# history\n${'莉娅欠公会一笔钱。'.repeat(500)}\n${'The tavern sells ale. '.repeat(500)}`;
    return { slice: whole.slice(20, 4000), joined: `${whole.slice(5, 100)} and ${whole.slice(200, 300)}`, unpaired: '\ud800 lone' };
  },
};

describe('serialising an event once (validateNewEvents, serializeNewEvents, copyNewEvents)', () => {
  for (const [name, make] of Object.entries(tricky)) {
    it(`keeps exactly the JSON round trip of ${name}`, () => {
      const data = make();
      const roundTrip = JSON.parse(JSON.stringify(data)) as unknown;
      const [copy] = copyNewEvents([event(data)]);
      expect(copy?.data).toStrictEqual(roundTrip);
      // Member order is JSON's too (a text store writes the same bytes from the copy).
      expect(JSON.stringify(copy?.data)).toBe(JSON.stringify(data));
      expect(serializeNewEvents([event(data)])).toEqual([JSON.stringify(data)]);
    });
  }

  it('keeps an own __proto__ key as a member, never as the prototype', () => {
    const [copy] = copyNewEvents([event(JSON.parse('{"__proto__": {"polluted": true}}'))]);
    const data = copy?.data as Record<string, unknown>;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('shares no object with the caller, so later changes to the input do not reach the copy', () => {
    const data = { list: [{ text: 'a' }], nested: { n: 1 } };
    const [copy] = copyNewEvents([event(data)]);
    data.list[0]!.text = 'changed';
    data.nested.n = 2;
    data.list.push({ text: 'more' });
    expect(copy?.data).toEqual({ list: [{ text: 'a' }], nested: { n: 1 } });
  });

  it('stores only the event fields, in the stored order', () => {
    const [copy] = copyNewEvents([{ ...event({ v: 1 }, { key: 'k' }), extra: 'dropped' } as NewSessionEvent]);
    expect(Object.keys(copy ?? {})).toEqual(['turnId', 'step', 'type', 'ignorable', 'at', 'key', 'data']);
    expect(Object.keys(copyNewEvents([event(1)])[0] ?? {})).not.toContain('key');
  });

  const notJson: Record<string, () => unknown> = {
    'a bigint': () => ({ n: 1n }),
    'a cycle': () => {
      const cyclic: Record<string, unknown> = { name: 'loop' };
      cyclic.self = { back: cyclic };
      return cyclic;
    },
    'undefined data': () => undefined,
    'a function as data': () => () => 1,
    'a throwing getter': () => ({
      get broken(): never {
        throw new Error('getter');
      },
    }),
    'a throwing toJSON': () => ({
      toJSON(): never {
        throw new Error('toJSON');
      },
    }),
  };
  for (const [name, make] of Object.entries(notJson)) {
    it(`rejects ${name} with SESSION_INVALID_EVENT, as validateNewEvents does`, () => {
      const batch = [event({ fine: true }), event(make())];
      const errorOf = (run: () => unknown) => {
        try {
          run();
        } catch (error) {
          return error;
        }
        throw new Error('expected a rejection');
      };
      const expected = errorOf(() => validateNewEvents(batch));
      expect(KernelStorageError.isInstance(expected)).toBe(true);
      for (const run of [() => serializeNewEvents(batch), () => copyNewEvents(batch)]) {
        const error = errorOf(run);
        expect(KernelStorageError.isInstance(error)).toBe(true);
        expect((error as KernelStorageError).code).toBe('SESSION_INVALID_EVENT');
        expect((error as KernelStorageError).message).toBe((expected as KernelStorageError).message);
      }
    });
  }

  it('rejects bad fields and non-arrays with the same errors as validateNewEvents', () => {
    const bad = [event(1, { type: 'Bad Type' }), event(1, { step: -1 }), event(1, { at: 'yesterday' }), event(1, { key: '' })];
    for (const candidate of [...bad.map((one) => [one]), 'not an array', null]) {
      let expected = '';
      try {
        validateNewEvents(candidate);
      } catch (error) {
        expected = (error as Error).message;
      }
      expect(expected).not.toBe('');
      expect(() => serializeNewEvents(candidate)).toThrow(expected);
      expect(() => copyNewEvents(candidate)).toThrow(expected);
    }
  });

  it('checks the type of every event, also after many valid types (the ones seen valid are remembered, boundedly)', () => {
    const many = Array.from({ length: 300 }, (_, n) => event(n, { type: `test/type-${n}` }));
    expect(serializeNewEvents(many)).toHaveLength(300);
    for (const bad of ['Bad Type', 'test/', '/test', 'test//x', 42, undefined]) {
      expect(() => serializeNewEvents([...many.slice(0, 3), event(1, { type: bad as string })]), String(bad)).toThrow('Invalid session event: type');
    }
    expect(serializeNewEvents([event(1, { type: 'test/type-0' }), event(2, { type: 'test/type-299' })])).toEqual(['1', '2']);
  });

  it('checks the time of every event of a batch, also after valid events with another time', () => {
    // Events of one batch usually share their time: a bad one among them is still caught.
    for (const badAt of ['yesterday', '', 'T', undefined, 42]) {
      const batch = [event(1), event(2, { at: '2026-12-01T00:00:01.000Z' }), event(3), event(4, { at: badAt as string })];
      for (const check of [validateNewEvents, serializeNewEvents, copyNewEvents]) {
        expect(() => check(batch), String(badAt)).toThrow('Invalid session event: at must be an ISO-8601 time');
        expect(() => check([batch[3]]), String(badAt)).toThrow('Invalid session event: at must be an ISO-8601 time');
      }
    }
  });

  it('builds the stored JSON from the data text: equal to stringifying the ordered event', () => {
    for (const one of [event({ text: '雾 "quoted"\n', list: [1, null] }, { key: 'k1' }), event('plain'), event([])]) {
      const [dataJson] = serializeNewEvents([one]);
      const stored = { id: 'e7', sessionId: 's1', ...one };
      const { data, key, ...fields } = stored;
      const ordered = { id: 'e7', sessionId: 's1', turnId: fields.turnId, step: fields.step, type: fields.type, ignorable: fields.ignorable, at: fields.at, ...(key === undefined ? {} : { key }), data };
      expect(storedEventJson(stored, dataJson!)).toBe(JSON.stringify(ordered));
      expect(JSON.parse(storedEventJson(stored, dataJson!))).toEqual(ordered);
      // Without the address (a database row keeps it in its own columns).
      const { id: _id, sessionId: _sessionId, ...body } = ordered;
      expect(storedEventJson(one, dataJson!)).toBe(JSON.stringify(body));
    }
  });
});

describe('MemorySessionLog keeps what it stored out of the callers’ reach', () => {
  it('stores the JSON round trip of the data and hands out copies that callers may change freely', async () => {
    const log = new MemorySessionLog();
    const data = { when: new Date(at), gone: undefined, list: [{ text: 'first' }], nan: Number.NaN };
    const [appended] = await log.append('s1', [event(data, { key: 'k' })]);
    const expected = JSON.parse(JSON.stringify(data)) as unknown;
    expect(appended?.data).toStrictEqual(expected);
    // Change the input and every object a read handed out: the stored event stays as it was.
    data.list[0]!.text = 'input changed';
    (appended!.data as { list: { text: string }[] }).list[0]!.text = 'append result changed';
    const [read] = await log.read('s1');
    (read!.data as { list: unknown[] }).list.push('read changed');
    const found = await log.findLatest('s1', { type: 'test/data', key: 'k' });
    (found!.data as { extra?: number }).extra = 1;
    const typed = await log.readTyped('s1', { types: ['test/data'] });
    (typed.events[0]!.data as { list: unknown[] }).list.length = 0;
    expect((await log.read('s1'))[0]?.data).toStrictEqual(expected);
    expect((await log.findLatest('s1', { type: 'test/data', key: 'k' }))?.data).toStrictEqual(expected);
    expect(Object.keys((await log.read('s1'))[0] ?? {})).toEqual(['id', 'sessionId', 'turnId', 'step', 'type', 'ignorable', 'at', 'key', 'data']);
  });

  it('hands back appended events that behave like read ones: same keys, equal data, each its own copy', async () => {
    const log = new MemorySessionLog();
    const appended = await log.append('s1', [event({ list: [1, { text: '雾' }] }, { key: 'k' }), event('plain')]);
    const read = await log.read('s1');
    expect(appended).toStrictEqual(read);
    expect(appended.map((one) => Object.keys(one))).toEqual(read.map((one) => Object.keys(one)));
    expect(JSON.stringify(appended)).toBe(JSON.stringify(read));
    expect({ ...appended[0] }).toStrictEqual(read[0]);
    // The same object on every read of `data`, never the stored one; assignable like a read event's.
    const first = appended[0]!;
    expect(first.data).toBe(first.data);
    (first.data as { list: unknown[] }).list.length = 0;
    (first as { data: unknown }).data = 'replaced';
    expect(first.data).toBe('replaced');
    expect((await log.read('s1'))[0]?.data).toStrictEqual({ list: [1, { text: '雾' }] });
  });

  it('hands out appended events whose data is theirs alone: each parses its own text, spread or stringified alike', async () => {
    const log = new MemorySessionLog();
    const appended = await log.append('s1', [event({ n: 1 }), event({ n: 2 }, { key: 'k' }), event([3])]);
    expect(appended.map((one) => one.data)).toEqual([{ n: 1 }, { n: 2 }, [3]]);
    // One shared accessor pair, yet every event keeps its own value (assigned or parsed).
    (appended[0] as { data: unknown }).data = 'replaced';
    expect(appended.map((one) => one.data)).toEqual(['replaced', { n: 2 }, [3]]);
    expect(Object.getPrototypeOf(appended[1])).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(appended[1]))).toEqual({ ...appended[1] });
    expect(Object.getOwnPropertyDescriptor(appended[2], 'data')?.enumerable).toBe(true);
  });

  it('finds events by id in appended, branched and imported sessions, also when ids have gaps', async () => {
    const log = new MemorySessionLog();
    await log.append('s1', [event(1), event(2), event(3), event(4)]);
    const ids = async (sessionId: string, options?: { afterId: string }) => (await log.read(sessionId, options)).map((one) => one.id);
    expect(await ids('s1', { afterId: 'e2' })).toEqual(['e3', 'e4']);
    for (const unknown of ['e0', 'e5', 'e02', 'x1', '']) await expect(log.read('s1', { afterId: unknown })).rejects.toMatchObject({ code: 'SESSION_EVENT_NOT_FOUND' });
    // A branch before the end continues numbering after the parent's last id: its ids get a gap.
    await log.branch('s1', 'e2', 'b1');
    await log.append('b1', [event(5), event(6)]);
    expect(await ids('b1')).toEqual(['e1', 'e2', 'e5', 'e6']);
    expect(await ids('b1', { afterId: 'e2' })).toEqual(['e5', 'e6']);
    await expect(log.read('b1', { afterId: 'e3' })).rejects.toMatchObject({ code: 'SESSION_EVENT_NOT_FOUND' });
    expect((await log.readTyped('b1', { types: ['test/data'], beforeId: 'e6', limit: 2 })).events.map((one) => one.id)).toEqual(['e2', 'e5']);
    // An import keeps the export's ids, gaps and all.
    const gappy = (await log.export('b1')).split('\n').filter(Boolean).reverse().join('\n');
    await log.import('i1', gappy);
    expect(await ids('i1')).toEqual(['e6', 'e5', 'e2', 'e1']);
    expect(await ids('i1', { afterId: 'e5' })).toEqual(['e2', 'e1']);
    await log.branch('i1', 'e2', 'i2');
    expect(await ids('i2')).toEqual(['e6', 'e5', 'e2']);
    expect((await log.append('i1', [event(7)]))[0]?.id).toBe('e7');
    expect(await ids('i1', { afterId: 'e1' })).toEqual(['e7']);
  });

  it('rejects a batch with non-JSON data with SESSION_INVALID_EVENT and appends nothing of it', async () => {
    const log = new MemorySessionLog();
    await log.append('s1', [event({ ok: 1 })]);
    await expect(log.append('s1', [event({ ok: 2 }), event({ n: 1n })])).rejects.toMatchObject({ code: 'SESSION_INVALID_EVENT' });
    expect((await log.read('s1')).map((stored) => stored.data)).toEqual([{ ok: 1 }]);
    expect((await log.append('s1', [event({ ok: 3 })]))[0]?.id).toBe('e2');
  });
});

describe('frozen JSON values (freezeJson): serialised once, spliced into every event that carries them', () => {
  const schema = () => ({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { facts: { type: 'array', items: { type: 'string' } }, '2': { const: '雾 "q"\n' } } });

  it('returns a deep-frozen copy equal to the JSON round trip, the same object when frozen again', () => {
    const input = { schema: schema(), name: 'brief', when: new Date(at), gone: undefined };
    const frozen = freezeJson(input);
    expect(frozen).not.toBe(input);
    expect(frozen).toStrictEqual(JSON.parse(JSON.stringify(input)));
    expect(Object.isFrozen(frozen) && Object.isFrozen(frozen.schema) && Object.isFrozen(frozen.schema.properties.facts.items)).toBe(true);
    expect(Object.isFrozen(input)).toBe(false);
    expect(freezeJson(frozen)).toBe(frozen);
    expect(() => freezeJson(() => 1)).toThrow(TypeError);
    expect(() => freezeJson({ n: 1n })).toThrow(TypeError);
  });

  // Data shapes around a frozen member: what is stored must be exactly JSON.stringify's bytes.
  const json = freezeJson({ schema: schema(), name: 'brief' });
  const other = freezeJson([1, 'two', { three: null }]);
  const shapes: Record<string, () => unknown> = {
    'a frozen member last (a logged stage request)': () => ({ stage: 'story/research', item: 'c1', model: 'm', messages: [{ role: 'user', content: 'hi "you"\n' }], json }),
    'a frozen member first and in the middle': () => ({ json, a: 1, other, b: [2] }),
    'only frozen members': () => ({ json, other }),
    'frozen data': () => json,
    'a frozen value deeper down': () => ({ nested: { json }, list: [other] }),
    'the same frozen value twice': () => ({ one: json, two: json }),
    'undefined, function and symbol members around it': () => ({ gone: undefined, f: () => 1, s: Symbol('s'), json, late: undefined }),
    'integer-like keys (JSON writes them first)': () => ({ b: 1, json, 10: 'ten', 2: 'two' }),
    'members with toJSON (given their own key)': () => ({ when: new Date(at), custom: { toJSON: (key: string) => `custom:${key}` }, json }),
    'an own __proto__ key': () => Object.assign(JSON.parse('{"__proto__": {"polluted": true}, "x": 1}'), { json }),
    'data with its own toJSON': () => ({ json, toJSON: () => ({ replaced: true }) }),
    'a null-prototype object': () => Object.assign(Object.create(null), { json, a: 1 }),
  };
  for (const [name, make] of Object.entries(shapes)) {
    it(`stores exactly JSON.stringify's text for ${name}`, async () => {
      const data = make();
      const [text] = serializeNewEvents([event(data)]);
      expect(text).toBe(JSON.stringify(data));
      const log = new MemorySessionLog();
      const [appended] = await log.append('s1', [event(data, { key: 'k' })]);
      const roundTrip = JSON.parse(JSON.stringify(data)) as unknown;
      expect(appended?.data).toStrictEqual(roundTrip);
      expect((await log.read('s1'))[0]?.data).toStrictEqual(roundTrip);
      // The export line is the one an unfrozen copy of the same data gives.
      const plain = new MemorySessionLog();
      await plain.append('s1', [event(roundTrip, { key: 'k' })]);
      expect(await log.export('s1')).toBe(await plain.export('s1'));
    });
  }

  it('rejects non-JSON members beside a frozen one with the error validateNewEvents gives', () => {
    for (const bad of [{ json, n: 1n }, { json, get broken(): never { throw new Error('getter'); } }]) {
      expect(() => serializeNewEvents([event(bad)])).toThrow('Invalid session event: data must be JSON-serialisable');
      expect(() => validateNewEvents([event(bad)])).toThrow('Invalid session event: data must be JSON-serialisable');
    }
    const cyclic: Record<string, unknown> = { json };
    cyclic.self = cyclic;
    expect(() => serializeNewEvents([event(cyclic)])).toThrow('Invalid session event: data must be JSON-serialisable');
  });
});
