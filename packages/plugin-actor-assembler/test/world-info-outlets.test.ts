import type { ActivatedWorldInfoEntry, ChatMessage } from '@troupe/kernel';
import { describe, expect, it } from 'vitest';
import { assemble, type Preset } from '../src/index.js';
import { prompt } from './helpers.js';

let next = 0;
function outlet(content: string, outletName: string, order = 100): ActivatedWorldInfoEntry {
  next++;
  return { id: `b.${next}`, book: 'b', uid: String(next), comment: '', content, position: 'outlet', outletName, order, depth: 4, role: 'system' };
}

const contents = (messages: readonly ChatMessage[]) => messages.map((message) => message.content);
const preset: Preset = {
  prompts: [
    prompt('main', 'MAIN [{{outlet::memory}}] [{{outlet:: memory }}] [{{outlet::Memory}}] [{{outlet::none}}]'),
    prompt('character', 'CHAR', { name: 'roleplay' }),
    prompt('notes', 'NOTES {{outlet::notes}}'),
    prompt('chatHistory', '', { marker: 'chatHistory' }),
    prompt('userInput', '', { role: 'user', marker: 'userInput' }),
  ],
};

describe('world-info outlets ({{outlet::name}})', () => {
  it("a prompt's {{outlet::name}} is the joined content of that outlet's entries, and they go nowhere else", () => {
    // Placement order (ascending order); SillyTavern pushes outlet entries in descending order, so
    // an outlet reads highest order first, joined by newlines (`value.join('\n')`).
    const entries = [outlet('LOW {{char}}', 'memory', 10), outlet('HIGH', 'memory', 500), outlet('NOTE', 'notes')];
    const result = assemble({ preset, history: [], input: 'hi', char: 'Lia', worldInfo: { entries } });
    // The name is trimmed and case-sensitive; an outlet without entries is empty (ST getOutletPrompt).
    expect(contents(result.messages)).toEqual(['MAIN [HIGH\nLOW Lia] [HIGH\nLOW Lia] [] []', 'CHAR', 'NOTES NOTE', 'hi']);
    expect(result.worldInfoPlacement).toMatchObject({ before: 'none', after: 'none', injections: 0 });
  });

  it('without world info, or with an entry whose outlet has no name, every outlet is empty', () => {
    expect(contents(assemble({ preset, history: [], input: 'hi' }).messages)[0]).toBe('MAIN [] [] [] []');
    const unnamed = assemble({ preset, history: [], input: 'hi', worldInfo: { entries: [outlet('LOST', '')] } });
    expect(contents(unnamed.messages).join('\n')).not.toContain('LOST');
  });
});
