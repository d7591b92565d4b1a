import { type ActivatedWorldInfo, contextKeys, definePlugin } from '@troupe/kernel';
import { ScriptedChatModel, createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { importCharacterBook, importWorldInfo, lorebookPlugin } from '../src/index.js';
import { book, fired } from './helpers.js';

// What the assembler would see: the uids in contextKeys.worldInfo, per turn.
function probe(seen: string[][]) {
  return definePlugin({
    name: 'probe',
    version: '1.0.0',
    setup(ctx) {
      ctx.hooks.preActor((_input, turn) => {
        seen.push((turn.get(contextKeys.worldInfo) as ActivatedWorldInfo | undefined)?.entries.map((entry) => entry.uid) ?? []);
      });
    },
  });
}

describe('generation-type triggers (ST triggers)', () => {
  it('are imported from world-info files (triggers) and cards (extensions.triggers); absent or null = every type', () => {
    const file = importWorldInfo({ entries: { '0': { key: ['a'], triggers: ['continue', 'swipe'] }, '1': { key: ['b'], triggers: null }, '2': { key: ['c'] } } }).book;
    expect(file.entries.map((entry) => entry.triggers)).toEqual([['continue', 'swipe'], [], []]);
    const card = importCharacterBook({ entries: [{ keys: ['a'], content: 'x', extensions: { triggers: ['normal'] } }] }).book;
    expect(card.entries[0]?.triggers).toEqual(['normal']);
  });

  it('an entry with triggers activates only on those generation types; an empty list on all (default normal)', () => {
    const books = [book([{ key: ['k'], content: 'any' }, { key: ['k'], triggers: ['continue'], content: 'on continue' }, { constant: true, triggers: ['swipe', 'regenerate'], content: 'on a new swipe' }])];
    expect(fired({ books, input: 'k' }).sort()).toEqual(['0']);
    expect(fired({ books, input: 'k', trigger: 'normal' }).sort()).toEqual(['0']);
    expect(fired({ books, input: 'k', trigger: 'continue' }).sort()).toEqual(['0', '1']);
    expect(fired({ books, input: 'k', trigger: 'swipe' }).sort()).toEqual(['0', '2']);
    expect(fired({ books, input: 'k', trigger: 'quiet' }).sort()).toEqual(['0']);
  });

  it('an unknown generation type is an input error', () => {
    expect(() => fired({ books: [], input: 'k', trigger: 'sideways' as never })).toThrow(/trigger/);
  });

  it('the plugin reads the turn: a first step is normal, a regenerated step is a swipe, a continue turn is continue', async () => {
    const books = [book([{ key: ['storm'], triggers: ['normal'], content: 'N' }, { key: ['storm'], triggers: ['swipe'], content: 'S' }, { key: ['storm'], triggers: ['continue'], content: 'C' }, { key: ['storm'], triggers: ['regenerate'], content: 'R' }])];
    const seen: string[][] = [];
    const { harness } = await createTestHarness({ plugins: [lorebookPlugin({ books }), probe(seen)], model: new ScriptedChatModel({ byStage: { actor: ['one', 'two', 'three'] } }) });
    await harness.runTurn({ sessionId: 's', text: 'a storm' });
    await harness.regenerateTurn({ sessionId: 's' });
    await harness.continueTurn({ sessionId: 's' });
    // ST's `regenerate` (the last reply deleted and written anew) has no Troupe counterpart: a
    // regenerated step keeps the earlier ones, like ST's swipe.
    expect(seen).toEqual([['0'], ['1'], ['2']]);
    await harness.close();
  });
});
