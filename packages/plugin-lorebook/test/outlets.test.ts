import { type ActivatedWorldInfo, contextKeys, definePlugin } from '@troupe/kernel';
import { ScriptedChatModel, createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { importCharacterBook, importWorldInfo, lorebookPlugin } from '../src/index.js';
import { book, run } from './helpers.js';

describe('outlets (ST position 7 + outletName)', () => {
  it('position 7 is imported as an outlet with its name, from world-info files (outletName) and cards (extensions.outlet_name)', () => {
    const file = importWorldInfo({ entries: { '0': { key: ['a'], position: 7, outletName: 'memory' } } });
    expect(file.skipped).toEqual([]);
    expect(file.book.entries[0]).toMatchObject({ position: 'outlet', outletName: 'memory' });
    const card = importCharacterBook({ entries: [{ keys: ['a'], content: 'x', extensions: { position: 7, outlet_name: 'notes' } }] });
    expect(card.skipped).toEqual([]);
    expect(card.book.entries[0]).toMatchObject({ position: 'outlet', outletName: 'notes' });
  });

  it('an outlet entry activates like any other and is listed under its position with its name', () => {
    const books = [book([{ key: ['k'], position: 7, outletName: 'memory', content: 'remembered' }, { key: ['k'], content: 'before' }])];
    const result = run({ books, input: 'k' });
    expect(result.byPosition.outlet.map((entry) => [entry.uid, entry.outletName])).toEqual([['0', 'memory']]);
    expect(result.byPosition.before.map((entry) => entry.uid)).toEqual(['1']);
  });

  it('the plugin hands outlet entries to the assembler with their outlet name', async () => {
    const books = [book([{ key: ['k'], position: 7, outletName: 'memory', content: 'remembered' }])];
    const seen: (ActivatedWorldInfo | undefined)[] = [];
    const probe = definePlugin({
      name: 'probe',
      version: '1.0.0',
      setup(ctx) {
        ctx.hooks.preActor((_input, turn) => {
          seen.push(turn.get(contextKeys.worldInfo));
        });
      },
    });
    const { harness } = await createTestHarness({ plugins: [lorebookPlugin({ books }), probe], model: new ScriptedChatModel({ byStage: { actor: ['ok'] } }) });
    await harness.runTurn({ sessionId: 's', text: 'k' });
    expect(seen[0]?.entries.map((entry) => [entry.position, entry.outletName, entry.content])).toEqual([['outlet', 'memory', 'remembered']]);
    await harness.close();
  });
});
