import { contextKeys, definePlugin, type ActivatedWorldInfo } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel, createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { type ActivatedEventData, LOREBOOK_ACTIVATED_EVENT, LOREBOOK_STATE_EVENT, lorebookPlugin } from '../src/index.js';
import { book } from './helpers.js';

// A probe in place of the assembler: it records what the kernel context key carries.
function probe(seen: (ActivatedWorldInfo | undefined)[]) {
  return definePlugin({
    name: 'probe',
    version: '1.0.0',
    setup(ctx) {
      ctx.hooks.preActor((_input, turn) => {
        seen.push(turn.get(contextKeys.worldInfo));
      });
    },
  });
}

const lore = book(
  [
    { key: ['storm'], sticky: 3, content: 'Storms come from the west.', comment: 'Storms' },
    { constant: true, content: 'Lia keeps the lighthouse.', position: 1, comment: 'Lia' },
    { key: ['harbour'], content: '' },
  ],
  'lighthouse',
);

describe('lorebookPlugin', () => {
  it('sets contextKeys.worldInfo before other preActor handlers and records what fired and why', async () => {
    const seen: (ActivatedWorldInfo | undefined)[] = [];
    const { harness } = await createTestHarness({ plugins: [probe(seen), lorebookPlugin({ books: [lore] })], model: new ScriptedChatModel({ byStage: { actor: ['ok'] } }) });
    const turn = await harness.runTurn({ sessionId: 's1', text: 'a storm at the harbour' });
    expect(seen[0]?.entries.map((entry) => [entry.uid, entry.position, entry.content])).toEqual([
      ['1', 'after', 'Lia keeps the lighthouse.'],
      ['0', 'before', 'Storms come from the west.'],
    ]);
    const event = turn.events.find((e) => e.type === LOREBOOK_ACTIVATED_EVENT);
    expect(event?.ignorable).toBe(true);
    const data = event?.data as ActivatedEventData;
    // The empty-content entry fired (it is in the log) but has nothing to place. Placement
    // order: equal orders read in reverse activation order, which is the scan order (a constant
    // entry is budgeted first but activated in its place, as in ST).
    expect(data.entries.map((entry) => [entry.uid, entry.reason, entry.key ?? null])).toEqual([
      ['2', 'key', 'harbour'],
      ['1', 'constant', null],
      ['0', 'key', 'storm'],
    ]);
    await harness.close();
  });

  it('keeps sticky effects per chat in the session log across turns and harness restarts', async () => {
    const sessionLog = new MemorySessionLog();
    const model = new ScriptedChatModel({ byStage: { actor: ['one', 'two', 'three'] } });
    const seen: (ActivatedWorldInfo | undefined)[] = [];
    const first = await createTestHarness({ plugins: [lorebookPlugin({ books: [lore] }), probe(seen)], model, sessionLog });
    await first.harness.runTurn({ sessionId: 'chat-a', text: 'a storm!' });
    await first.harness.close();
    const second = await createTestHarness({ plugins: [lorebookPlugin({ books: [lore] }), probe(seen)], model, sessionLog });
    const calm = await second.harness.runTurn({ sessionId: 'chat-a', text: 'all calm' });
    const other = await second.harness.runTurn({ sessionId: 'chat-b', text: 'all calm' });
    const reasons = (turn: typeof calm) => ((turn.events.find((e) => e.type === LOREBOOK_ACTIVATED_EVENT)?.data ?? { entries: [] }) as ActivatedEventData).entries.map((e) => `${e.uid}:${e.reason}`);
    expect(reasons(calm)).toEqual(['1:constant', '0:sticky']);
    expect(reasons(other)).toEqual(['1:constant']);
    const stateEvents = (await sessionLog.read('chat-a')).filter((e) => e.type === LOREBOOK_STATE_EVENT);
    expect(stateEvents[0]?.data).toEqual({ sticky: { 'lighthouse.0': { start: 1, end: 4, protected: false } }, cooldown: {} });
    await second.harness.close();
  });

  it('books can be chosen per turn; no books means no key and no event', async () => {
    const seen: (ActivatedWorldInfo | undefined)[] = [];
    const { harness } = await createTestHarness({
      plugins: [lorebookPlugin({ books: (turn) => (turn.turnInput.attributes?.['lore'] === 'on' ? [lore] : []) }), probe(seen)],
      model: new ScriptedChatModel({ byStage: { actor: ['a', 'b'] } }),
    });
    const off = await harness.runTurn({ sessionId: 's2', text: 'storm' });
    await harness.runTurn({ sessionId: 's3', text: 'storm', attributes: { lore: 'on' } });
    expect(seen[0]).toBeUndefined();
    expect(seen[1]?.entries.length).toBe(2);
    expect(off.events.some((e) => e.type === LOREBOOK_ACTIVATED_EVENT)).toBe(false);
    await harness.close();
  });

  it('a per-turn source may give the chat its own names ({{char}} in keys)', async () => {
    const named = book([{ key: ['{{char}}'], content: 'The keeper is named.' }], 'named');
    const seen: (ActivatedWorldInfo | undefined)[] = [];
    const { harness } = await createTestHarness({
      plugins: [lorebookPlugin({ books: () => ({ books: [named], names: { char: 'Wren' } }), names: { char: 'Lia' } }), probe(seen)],
      model: new ScriptedChatModel({ byStage: { actor: ['a', 'b'] } }),
    });
    await harness.runTurn({ sessionId: 's4', text: 'where is Lia?' });
    await harness.runTurn({ sessionId: 's5', text: 'where is Wren?' });
    expect(seen.map((value) => value?.entries.length ?? 0)).toEqual([0, 1]);
    await harness.close();
  });

  it("scans a per-turn source's greeting as the chat's first message, while the history read reaches the chat's start", async () => {
    const lamp = book([{ key: ['lamp'], content: 'The lamp was a gift.' }], 'lamp');
    const seen: (ActivatedWorldInfo | undefined)[] = [];
    const { harness } = await createTestHarness({
      maxHistoryTurns: 1,
      plugins: [lorebookPlugin({ books: () => ({ books: [lamp], greeting: '*She lights the lamp.*' }), settings: { scanDepth: 10 } }), probe(seen)],
      model: new ScriptedChatModel({ byStage: { actor: ['a', 'b', 'c'] } }),
    });
    await harness.runTurn({ sessionId: 'g1', text: 'hello' });
    await harness.runTurn({ sessionId: 'g1', text: 'again' });
    // Third turn: the kernel hands out only the latest turn, so the chat's start is out of reach.
    await harness.runTurn({ sessionId: 'g1', text: 'and again' });
    expect(seen.map((value) => value?.entries.length ?? 0)).toEqual([1, 1, 0]);
    await harness.close();
  });

  it('a greeting that is not text fails the turn with a clear error', async () => {
    const { harness } = await createTestHarness({
      plugins: [lorebookPlugin({ books: () => ({ books: [lore], greeting: 7 as unknown as string }) })],
      model: new ScriptedChatModel({ byStage: { actor: ['a'] } }),
    });
    await expect(harness.runTurn({ sessionId: 'g2', text: 'hello' })).rejects.toMatchObject({ cause: { code: 'LOREBOOK_INPUT_INVALID' } });
    await harness.close();
  });

  it("takes the kernel's world-info share of the turn's token budget unless given a budget of its own", async () => {
    const big = book(
      [
        { key: ['k'], order: 2, content: 'first entry with some words in it' },
        { key: ['k'], order: 1, content: 'second entry with some words in it' },
      ],
      'big',
    );
    const limits = async (plugin: ReturnType<typeof lorebookPlugin>) => {
      const { harness } = await createTestHarness({ plugins: [plugin], model: new ScriptedChatModel({ byStage: { actor: ['a'] } }), scenario: { tokenBudget: { contextTokens: 4000, worldInfoTokens: 14 } } });
      const turn = await harness.runTurn({ sessionId: 's6', text: 'k' });
      await harness.close();
      const data = turn.events.find((e) => e.type === LOREBOOK_ACTIVATED_EVENT)?.data as ActivatedEventData;
      return { limit: data.budget.limit, fired: data.entries.length };
    };
    expect(await limits(lorebookPlugin({ books: [big] }))).toEqual({ limit: 14, fired: 1 });
    expect(await limits(lorebookPlugin({ books: [big], settings: { budgetTokens: 500 } }))).toEqual({ limit: 500, fired: 2 });
    expect(await limits(lorebookPlugin({ books: [big], settings: { budgetPercent: 50 } }))).toEqual({ limit: 4096, fired: 2 });
  });

  it('invalid options fail at boot', async () => {
    await expect(createTestHarness({ plugins: [lorebookPlugin({ books: [lore], settings: { scanDepth: -2 } })] })).rejects.toMatchObject({ code: 'KERNEL_PLUGIN_CONFIG_INVALID' });
  });
});

describe('world info within the chat’s context budget', () => {
  const big = book(
    [
      { constant: true, order: 200, content: 'The harbour guild owns every pier. '.repeat(20), comment: 'Guild' },
      { constant: true, order: 100, content: 'Lia keeps the lighthouse.', comment: 'Lia' },
    ],
    'harbour',
  );

  it('takes the context size from contextKeys.tokenBudget (scenario.tokenBudget) and counts with its counter', async () => {
    const run = async (contextTokens: number) => {
      const { harness } = await createTestHarness({ plugins: [lorebookPlugin({ books: [big] })], model: new ScriptedChatModel({ byStage: { actor: ['ok'] } }) });
      const turn = await harness.runTurn({ sessionId: 's', text: 'hello', scenario: { tokenBudget: { contextTokens } } });
      await harness.close();
      return turn.events.find((event) => event.type === LOREBOOK_ACTIVATED_EVENT)?.data as ActivatedEventData;
    };
    const roomy = await run(32_768);
    expect(roomy.budget.limit).toBe(8192);
    expect(roomy.entries.map((entry) => entry.comment)).toEqual(['Lia', 'Guild']);
    // 25 % of 512 tokens cannot hold the guild entry (≈ 160 estimated tokens): it loses the budget.
    const tight = await run(512);
    expect(tight.budget.limit).toBe(128);
    expect(tight.rejected.map((rejection) => rejection.reason)).toContain('budget');
  });

  it('keeps a context size the plugin was given', async () => {
    const { harness } = await createTestHarness({
      plugins: [lorebookPlugin({ books: [big], settings: { contextSize: 4000 } })],
      model: new ScriptedChatModel({ byStage: { actor: ['ok'] } }),
    });
    const turn = await harness.runTurn({ sessionId: 's', text: 'hello', scenario: { tokenBudget: { contextTokens: 512 } } });
    const data = turn.events.find((event) => event.type === LOREBOOK_ACTIVATED_EVENT)?.data as ActivatedEventData | undefined;
    expect(data?.budget.limit).toBe(1000);
    await harness.close();
  });
});
