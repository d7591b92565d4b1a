import type { Preset } from '@troupe/plugin-actor-assembler';

/**
 * The built-in chat preset: how SillyTavern's default frames a one-on-one chat (main
 * instruction, the character, the player's persona, examples, history, input), with the
 * character in the `roleplay` prompt so DIO can place its compiled prompt there. The card's
 * `system_prompt` replaces `main` and its `post_history_instructions` the `jailbreak` prompt,
 * as the V2 spec asks (see `chatPreset`).
 */
export const CHAT_DEFAULT_PRESET: Preset = {
  name: 'Troupe chat default',
  prompts: [
    {
      identifier: 'main',
      name: 'Main prompt',
      role: 'system',
      content: "Write {{char}}'s next reply in a fictional chat between {{char}} and {{user}}. Stay in character, answer what {{user}} just said, write in the language {{user}} uses, and never speak or act for {{user}}.",
    },
    { identifier: 'character', name: 'roleplay', role: 'system', content: '{{description}}\n\n{{char}}\'s personality: {{personality}}\n\nScenario: {{scenario}}' },
    { identifier: 'personaDescription', name: 'Persona description', role: 'system', content: '{{persona}}' },
    { identifier: 'dialogueExamples', name: 'Dialogue examples', role: 'system', content: '{{mesExamples}}' },
    { identifier: 'chatHistory', name: 'Chat history', role: 'system', content: '', marker: 'chatHistory' },
    { identifier: 'userInput', name: 'Player input', role: 'user', content: '', marker: 'userInput' },
    { identifier: 'jailbreak', name: 'Post-history instructions', role: 'system', content: '' },
  ],
};
