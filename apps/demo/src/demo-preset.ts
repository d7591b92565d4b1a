import type { Preset } from '@troupe/plugin-actor-assembler';
import { LIA_CHARACTER_PROMPT } from './example/lia-character.js';

/**
 * The actor preset: control instructions → the `roleplay` character prompt → history → the
 * player's input. The `roleplay` prompt is the DIO slot: on later turns its whole content is
 * replaced by the compiled prompt, role and position kept.
 */
export const demoPreset: Preset = {
  prompts: [
    {
      identifier: 'control',
      name: 'Control',
      role: 'system',
      content: 'Only write {{char}}’s lines and actions, in the language the player uses. Never speak for {{user}}.',
    },
    { identifier: 'character', name: 'roleplay', role: 'system', content: LIA_CHARACTER_PROMPT },
    { identifier: 'chatHistory', name: 'History', role: 'system', content: '', marker: 'chatHistory' },
    { identifier: 'userInput', name: 'Input', role: 'user', content: '', marker: 'userInput' },
  ],
};
