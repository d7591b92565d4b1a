import { KernelError } from '@troupe/kernel';
import { createTestHarness, ScriptedChatModel } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EntriesSchema, InputSchema } from '../src/activation-input.js';
import { LOREBOOK_ACTIVATED_EVENT, type Lorebook, lorebookPlugin, type WorldInfoSettingsInput } from '../src/index.js';
import { WorldInfoSettingsSchema } from '../src/settings.js';
import { book } from './helpers.js';

// The plugin's options (books and settings) are checked once, at boot (issue 22); a turn checks
// only what it brings: the books a book source returns. Counted on the schemas' entry points.

afterEach(() => {
  vi.restoreAllMocks();
});

/** A book whose entries are plain (not frozen) objects: nothing may remember them as checked. */
function plainBook(): Lorebook {
  const imported = book([{ constant: true, content: 'Lia keeps the lighthouse.', comment: 'Lia' }, { key: ['storm'], content: 'Storms come from the west.' }], 'lighthouse');
  return { ...imported, entries: imported.entries.map((entry) => ({ ...entry })) };
}

function validationSpies() {
  return {
    wholeInput: vi.spyOn(InputSchema, 'safeParse'),
    entries: vi.spyOn(EntriesSchema, 'safeParse'),
    settings: vi.spyOn(WorldInfoSettingsSchema, 'safeParse'),
  };
}

const counts = (spies: ReturnType<typeof validationSpies>) => Object.fromEntries(Object.entries(spies).map(([name, spy]) => [name, spy.mock.calls.length]));

async function threeTurns(books: readonly Lorebook[] | (() => readonly Lorebook[]), settings: WorldInfoSettingsInput) {
  const spies = validationSpies();
  const { harness } = await createTestHarness({ plugins: [lorebookPlugin({ books, settings })], model: new ScriptedChatModel({ byStage: { actor: ['ok'] } }) });
  for (const spy of Object.values(spies)) spy.mockClear();
  for (let turn = 0; turn < 3; turn++) {
    const result = await harness.runTurn({ sessionId: 's', text: 'a storm tonight?' });
    const activated = result.events.find((event) => event.type === LOREBOOK_ACTIVATED_EVENT)?.data as { entries: { comment: string }[] };
    expect(activated.entries.map((entry) => entry.comment)).toContain('Lia');
  }
  await harness.close();
  return counts(spies);
}

describe('the lorebook plugin validates its options at boot only', () => {
  it('its own books and settings are never checked again on a turn', async () => {
    expect(await threeTurns([plainBook()], { scanDepth: 4 })).toEqual({ wholeInput: 0, entries: 0, settings: 0 });
  });

  it('books from a book source are checked once per turn, the settings never', async () => {
    expect(await threeTurns(() => [plainBook()], { scanDepth: 4 })).toEqual({ wholeInput: 0, entries: 3, settings: 0 });
  });

  it('bad books in the options fail the boot, naming the entry', async () => {
    const broken = { name: 'broken', entries: [{ ...plainBook().entries[0], content: 42 }] } as unknown as Lorebook;
    const error = await createTestHarness({ plugins: [lorebookPlugin({ books: [broken] })] }).catch((caught: unknown) => caught);
    expect(KernelError.isInstance(error) && error.code).toBe('KERNEL_PLUGIN_CONFIG_INVALID');
    expect((error as Error).message).toContain('content');
    const twice = await createTestHarness({ plugins: [lorebookPlugin({ books: [plainBook(), plainBook()] })] }).catch((caught: unknown) => caught);
    expect(KernelError.isInstance(twice) && twice.code).toBe('KERNEL_PLUGIN_CONFIG_INVALID');
    expect((twice as Error).message).toContain('Two books are named "lighthouse"');
  });
});
