import type { PromptEntry } from '../src/index.js';

/** A prompt with defaults, for terse tests. */
export function prompt(identifier: string, content: string, extra: Partial<PromptEntry> = {}): PromptEntry {
  return { identifier, name: extra.name ?? identifier, role: 'system', content, ...extra };
}

/** Control instructions → character slot → history → input: the seed's example template. */
export function seedPrompts(characterPrompt: PromptEntry = prompt('character', '莉娅是灯塔看守人。', { name: 'roleplay' })): PromptEntry[] {
  return [
    prompt('control', '控制说明：只写莉娅的台词与动作。'),
    characterPrompt,
    prompt('chatHistory', '', { marker: 'chatHistory' }),
    prompt('userInput', '', { marker: 'userInput', role: 'user' }),
  ];
}
