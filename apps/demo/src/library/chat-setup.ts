import { type ActorProfile, characterMacroFields, type ImportedCharacter, type Preset, type PromptEntry } from '@troupe/plugin-actor-assembler';
import type { LibraryCharacter } from './character-library.js';
import type { Chat } from './chat-library.js';
import { type ChatNames, substituteNames } from './name-macros.js';
import type { Persona } from '../wire/library.js';
import type { LibraryPreset } from './preset-library.js';

/** Everything a chat turn is played with. */
export interface ChatSetup {
  readonly chat: Chat;
  readonly character: LibraryCharacter;
  readonly preset: LibraryPreset;
  readonly persona: Persona;
}

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

/**
 * The preset a chat turn is assembled with: the chosen preset with its SillyTavern settings and
 * regex scripts, with the character in the built-in `roleplay` slot. The chosen greeting is not
 * a prompt: it is the chat's first message (see {@link chatActorProfile}). The card's `system_prompt` / `post_history_instructions` replace the preset's `main` /
 * `jailbreak` in the assembler (see {@link chatActorProfile}); a preset without such a prompt gets
 * one here, first / after the input, so the card's prompts are never lost (the V2 spec).
 * @param setup - the chat
 * @returns a preset
 */
export function chatPreset(setup: ChatSetup): Preset {
  const names = chatNames(setup);
  const card = setup.character.card;
  const systemPrompt = setup.chat.useCardPrompts ? card.cardPrompts.systemPrompt.trim() : '';
  const postHistory = setup.chat.useCardPrompts ? card.cardPrompts.postHistoryInstructions.trim() : '';
  const source = setup.preset.preset.prompts;
  const prompts: PromptEntry[] = [];
  for (const prompt of source) {
    if (setup.preset.builtIn && prompt.name === 'roleplay') {
      prompts.push({ ...prompt, content: characterPromptText(card.character, names) });
      continue;
    }
    prompts.push(prompt);
  }
  if (systemPrompt !== '' && !source.some((prompt) => prompt.identifier === 'main')) {
    prompts.unshift({ identifier: 'main', name: 'Card system prompt', role: 'system', content: '' });
  }
  if (postHistory !== '' && !source.some((prompt) => prompt.identifier === 'jailbreak')) {
    prompts.push({ identifier: 'jailbreak', name: 'Card post-history instructions', role: 'system', content: '' });
  }
  return { ...setup.preset.preset, name: setup.preset.name, prompts };
}

/**
 * The greeting the chat starts with (the one the player swiped to), names put in; `''` when the
 * card has none there.
 * @param setup - the chat
 * @returns the greeting
 */
export function chatGreeting(setup: ChatSetup): string {
  return chatGreetings(setup.character.card.character, chatNames(setup))[setup.chat.greetingIndex] ?? '';
}

/**
 * What the actor plays on a chat's turn: the chat's preset, names, the card's fields (names put in)
 * plus the persona's description for `{{persona}}`, the card's own prompts (unless the chat opts
 * out), its depth prompt, its regex scripts and the chosen greeting as the chat's first message.
 * @param setup - the chat
 * @returns the per-turn actor profile
 */
export function chatActorProfile(setup: ChatSetup): ActorProfile {
  const names = chatNames(setup);
  const fields = characterMacroFields(setup.character.card.character, setup.persona.description);
  const substituted = Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, substituteNames(value ?? '', names)]));
  const character = setup.character.card.character;
  return {
    preset: chatPreset(setup),
    char: names.char,
    user: names.user,
    fields: substituted,
    ...(setup.chat.useCardPrompts ? { cardPrompts: setup.character.card.cardPrompts } : {}),
    ...(character.depthPrompt ? { depthPrompt: character.depthPrompt } : {}),
    ...(character.regexScripts.length > 0 ? { regexScripts: character.regexScripts } : {}),
    greeting: chatGreeting(setup),
  };
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
