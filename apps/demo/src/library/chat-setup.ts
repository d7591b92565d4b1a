import { type ActorProfile, characterMacroFields, type ImportedCharacter, type Preset, type PromptEntry } from '@troupe/plugin-actor-assembler';
import type { LibraryCharacter } from './character-library.js';
import type { Chat } from './chat-library.js';
import { type ChatNames, substituteNames } from './name-macros.js';
import type { Persona } from './persona-library.js';
import type { LibraryPreset } from './preset-library.js';

/** Everything a chat turn is played with. */
export interface ChatSetup {
  readonly chat: Chat;
  readonly character: LibraryCharacter;
  readonly preset: LibraryPreset;
  readonly persona: Persona;
}

/** Identifier of the greeting prompt placed right before the history. */
export const GREETING_PROMPT_ID = 'firstMessage';

/**
 * `{{char}}` and `{{user}}` of a chat: the card's nickname-or-name and the persona's name.
 * @param setup - the chat
 * @returns the names
 */
export function chatNames(setup: Pick<ChatSetup, 'character' | 'persona'>): ChatNames {
  return { char: setup.character.card.character.displayName, user: setup.persona.name };
}

/**
 * The character as one prompt: description, personality and scenario, empty parts left out, names
 * put in. It fills the built-in preset's `roleplay` slot and is the base prompt DIO compiles.
 * @param character - the card's character
 * @param names - `{{char}}` / `{{user}}`
 * @returns the prompt text
 */
export function characterPromptText(character: ImportedCharacter, names: ChatNames): string {
  const parts = [
    character.description.trim(),
    character.personality.trim() && `${names.char}'s personality: ${character.personality.trim()}`,
    character.scenario.trim() && `Scenario: ${character.scenario.trim()}`,
  ].filter((part) => part !== '');
  // The name line first: every model (and the offline simulation) learns who it plays even when the
  // card's own system_prompt names nobody, and a lorebook-only card (empty description) still says it.
  return substituteNames([`Name: ${names.char}`, ...parts].join('\n\n'), names);
}

/**
 * The chat's greetings with names put in: `first_mes`, then each alternate greeting (the swipes of
 * the first message).
 * @param character - the card's character
 * @param names - `{{char}}` / `{{user}}`
 * @returns the greetings (possibly with empty ones, kept so indexes match the card)
 */
export function chatGreetings(character: ImportedCharacter, names: ChatNames): string[] {
  return [character.firstMessage, ...character.alternateGreetings].map((text) => substituteNames(text, names));
}

// SillyTavern's rule for a card's prompt overrides: the card text replaces the preset's prompt,
// and `{{original}}` in it stands for the text it replaced.
function replaceWithCard(prompt: PromptEntry, cardText: string): PromptEntry {
  return { ...prompt, content: cardText.replace(/\{\{original\}\}/gi, prompt.content), enabled: true };
}

/**
 * The preset a chat turn is assembled with: the chosen preset, with the character in the built-in
 * `roleplay` slot, the card's `system_prompt` in place of `main` and its
 * `post_history_instructions` in place of `jailbreak` (unless the chat opts out), and the chosen
 * greeting as the first assistant message right before the history.
 * @param setup - the chat
 * @returns a preset
 */
export function chatPreset(setup: ChatSetup): Preset {
  const names = chatNames(setup);
  const card = setup.character.card;
  const systemPrompt = setup.chat.useCardPrompts ? card.cardPrompts.systemPrompt.trim() : '';
  const postHistory = setup.chat.useCardPrompts ? card.cardPrompts.postHistoryInstructions.trim() : '';
  const greeting = chatGreetings(card.character, names)[setup.chat.greetingIndex] ?? '';
  const prompts: PromptEntry[] = [];
  let placedSystem = systemPrompt === '';
  let placedPostHistory = postHistory === '';
  for (const prompt of setup.preset.preset.prompts) {
    if (prompt.identifier === 'main' && !placedSystem) {
      prompts.push(replaceWithCard(prompt, systemPrompt));
      placedSystem = true;
      continue;
    }
    if (prompt.identifier === 'jailbreak' && !placedPostHistory) {
      prompts.push(replaceWithCard(prompt, postHistory));
      placedPostHistory = true;
      continue;
    }
    if (setup.preset.builtIn && prompt.name === 'roleplay') {
      prompts.push({ ...prompt, content: characterPromptText(card.character, names) });
      continue;
    }
    if (prompt.marker === 'chatHistory' && greeting.trim() !== '') {
      prompts.push({ identifier: GREETING_PROMPT_ID, name: 'First message', role: 'assistant', content: greeting });
    }
    prompts.push(prompt);
  }
  if (!placedSystem) prompts.unshift({ identifier: 'cardSystemPrompt', name: 'Card system prompt', role: 'system', content: systemPrompt });
  if (!placedPostHistory) prompts.push({ identifier: 'cardPostHistoryInstructions', name: 'Card post-history instructions', role: 'system', content: postHistory });
  return { name: setup.preset.name, prompts };
}

/**
 * What the actor plays on a chat's turn: the chat's preset, names, and the card's fields (names put
 * in) plus the persona's description for `{{persona}}`.
 * @param setup - the chat
 * @returns the per-turn actor profile
 */
export function chatActorProfile(setup: ChatSetup): ActorProfile {
  const names = chatNames(setup);
  const fields = characterMacroFields(setup.character.card.character, setup.persona.description);
  const substituted = Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, substituteNames(value ?? '', names)]));
  return { preset: chatPreset(setup), char: names.char, user: names.user, fields: substituted };
}

/**
 * The DIO target prompt of a library character (one per character, so a requirement made in one
 * chat with Seraphina shapes Seraphina, not Lia).
 * @param characterId - the library id
 * @returns the target prompt id
 */
export function dioTargetPromptId(characterId: string): string {
  return `character-${characterId}`;
}
