// SillyTavern's prompt-manager behaviour around the ordered prompts: the chat block (new-chat
// prompt, names, regex, in-chat injections), example dialogues, the marker formats, squashing and
// prefill. `assemble` calls these; each is a pure function of its inputs.
import type { ChatMessage } from '@troupe/kernel';
import { type ChatInjection, placeInjections } from './injections.js';
import { type MacroEnvironment, expandMacros } from './macros.js';
import type { PresetSettings } from './preset-settings.js';
import type { PromptEntry } from './preset.js';
import { applyRegexScripts, type RegexTarget } from './regex/apply-scripts.js';
import type { RegexScript } from './regex/regex-script.js';
import { exampleMessages, splitExampleDialogues } from './shaping/example-dialogues.js';
import { applyNamesBehavior } from './shaping/names.js';
import { squashSystemMessages } from './shaping/squash.js';

/** What kind of generation this is (SillyTavern's generation types that change the prompt). */
export type GenerationType = 'normal' | 'continue' | 'impersonate';

/** Everything the chat block needs. */
export interface ChatBlockInput {
  readonly history: readonly ChatMessage[];
  /** The current input message, or undefined when the input is placed elsewhere or is empty. */
  readonly inputMessage: ChatMessage | undefined;
  /** A message to put right before the input (the story draft). */
  readonly beforeInput: ChatMessage | undefined;
  readonly injections: readonly ChatInjection[];
  readonly settings: PresetSettings;
  readonly regexScripts: readonly RegexScript[];
  readonly env: MacroEnvironment;
  readonly names: { readonly user: string; readonly char: string; readonly group: boolean };
  readonly warn: (message: string) => void;
  /** Messages that squashing must leave alone (filled in here: the new-chat prompt). */
  readonly keepUnsquashed: Set<ChatMessage>;
  /** A `continue` turn ends the block with the continue nudge (unless `continue_prefill`). */
  readonly type: GenerationType;
}

// SillyTavern inserts the nudge at the end of the chat-history block
// (`insertAtEnd(continueMessage, 'chatHistory')`), so the post-history instructions still follow it.
function continueNudge(chat: readonly ChatMessage[], input: ChatBlockInput): ChatMessage | undefined {
  if (input.type !== 'continue' || input.settings.continuePrefill === true || input.settings.continueNudgePrompt === undefined) return undefined;
  const last = chat.findLast((message) => message.role === 'assistant');
  // `{{lastChatMessage}}` is the reply being continued (a chat message as sent, not an injection),
  // trimmed as SillyTavern passes it (`String(cyclePrompt).trim()`: without the continue postfix).
  const template = input.settings.continueNudgePrompt.replace(/\{\{lastChatMessage\}\}/gi, () => last?.content.trim() ?? '');
  const nudge = expandMacros(template, input.env);
  return nudge.trim() === '' ? undefined : { role: 'system', content: nudge };
}

function runsIn(script: RegexScript, mode: 'stored' | 'prompt'): boolean {
  if (script.disabled === true) return false;
  return mode === 'prompt' ? script.promptOnly === true : script.promptOnly !== true && script.markdownOnly !== true;
}

function regexed(messages: readonly ChatMessage[], input: ChatBlockInput): ChatMessage[] {
  if (input.regexScripts.length === 0) return [...messages];
  const expand = (text: string, escapeValue?: (value: string) => string) => expandMacros(text, escapeValue === undefined ? input.env : { ...input.env, transformResult: escapeValue });
  const run = (list: readonly ChatMessage[], mode: 'stored' | 'prompt'): ChatMessage[] => {
    if (!input.regexScripts.some((script) => runsIn(script, mode))) return list as ChatMessage[];
    const targets: RegexTarget[] = list.map((message, index) => ({
      text: message.content,
      // Stored-text scripts run on user messages only: the kernel keeps the raw input, so the
      // rewrite SillyTavern makes on sending is made here; replies were rewritten when stored
      // (the review hook). Prompt-only scripts run on both.
      placement: message.role === 'user' ? 'userInput' : message.role === 'assistant' && mode === 'prompt' ? 'aiOutput' : undefined,
      depth: list.length - 1 - index,
    }));
    const texts = applyRegexScripts(targets, input.regexScripts, { mode, expand, warn: input.warn });
    return list.map((message, index) => (texts[index] === message.content ? message : { ...message, content: texts[index] ?? message.content }));
  };
  return run(run(messages, 'stored'), 'prompt');
}

/**
 * Builds the chat: the new-chat prompt, the history and the current input with regex scripts and
 * names applied, and the in-chat injections at their depths (counted from the newest message, the
 * input included), and on a `continue` turn the continue nudge last. Split at the input, so a preset
 * with a `userInput` marker can place the input (with the story-draft message before it, the depth-0
 * injections and the nudge after it) apart from the history.
 * @param input - history, input, injections, settings and helpers
 * @returns what goes at the history marker, and what starts at the input
 */
export function buildChatBlock(input: ChatBlockInput): { beforeInput: ChatMessage[]; fromInput: ChatMessage[] } {
  const chat = input.inputMessage === undefined ? [...input.history] : [...input.history, input.inputMessage];
  const shaped = regexed(chat, input).map((message) => applyNamesBehavior(message, input.settings.namesBehavior ?? 'none', input.names));
  const shapedInput = input.inputMessage === undefined ? undefined : shaped[shaped.length - 1];
  const placed = placeInjections(shaped, input.injections);
  const at = shapedInput === undefined ? placed.length : placed.lastIndexOf(shapedInput);
  const beforeInput = placed.slice(0, at);
  const fromInput = placed.slice(at);
  if (input.beforeInput !== undefined) fromInput.unshift(input.beforeInput);
  const nudge = continueNudge(shaped, input);
  if (nudge !== undefined) fromInput.push(nudge);
  const newChat = input.settings.newChatPrompt === undefined ? '' : expandMacros(input.settings.newChatPrompt, input.env);
  if (newChat.trim() !== '') {
    const message: ChatMessage = { role: 'system', content: newChat };
    input.keepUnsquashed.add(message);
    beforeInput.unshift(message);
  }
  return { beforeInput, fromInput };
}

/**
 * Applies the regex scripts that target world info to one expanded entry text (stored-text and
 * prompt-only scripts both: the entry text is only ever used in the prompt).
 * @param text - the expanded entry text
 * @param scripts - preset and card scripts
 * @param env - macro environment
 * @param warnings - collects scripts that could not run
 * @returns the rewritten text
 */
export function worldInfoRegex(text: string, scripts: readonly RegexScript[], env: MacroEnvironment, warnings: string[]): string {
  if (scripts.length === 0 || text === '') return text;
  const expand = (value: string, escapeValue?: (value: string) => string) => expandMacros(value, escapeValue === undefined ? env : { ...env, transformResult: escapeValue });
  const warn = (message: string) => warnings.push(message);
  const stored = applyRegexScripts([{ text, placement: 'worldInfo' }], scripts, { mode: 'stored', expand, warn })[0] ?? text;
  return applyRegexScripts([{ text: stored, placement: 'worldInfo' }], scripts, { mode: 'prompt', expand, warn })[0] ?? stored;
}

/**
 * The example dialogues for the `dialogueExamples` marker: the card's `mes_example` split at
 * `<START>`, each dialogue after the preset's `new_example_chat_prompt`.
 * @param examples - the card's expanded example text
 * @param settings - preset settings
 * @param env - macro environment (for the example-chat prompt)
 * @param names - user and character names (the speaker prefixes in the examples)
 * @returns the messages
 */
export function exampleDialogueMessages(examples: string, settings: PresetSettings, env: MacroEnvironment, names: { user: string; char: string }): ChatMessage[] {
  const header = settings.newExampleChatPrompt === undefined ? '' : expandMacros(settings.newExampleChatPrompt, env);
  const messages: ChatMessage[] = [];
  for (const dialogue of splitExampleDialogues(examples)) {
    if (header.trim() !== '') messages.push({ role: 'system', content: header });
    messages.push(...exampleMessages(dialogue, names.user, names.char));
  }
  return messages;
}

const FIELD_MARKERS: Readonly<Record<string, { field: 'personality' | 'scenario'; format: 'personalityFormat' | 'scenarioFormat' }>> = {
  charPersonality: { field: 'personality', format: 'personalityFormat' },
  scenario: { field: 'scenario', format: 'scenarioFormat' },
};
const WORLD_INFO_MARKERS: ReadonlySet<string> = new Set(['worldInfoBefore', 'worldInfoAfter']);

/**
 * Applies SillyTavern's marker formats to an expanded marker prompt: `personality_format` and
 * `scenario_format` replace the imported `{{personality}}` / `{{scenario}}` marker (empty when the
 * field is empty), `wi_format` wraps world info (`{0}`). Prompts a user edited are left alone.
 * @param prompt - the prompt
 * @param content - its expanded content
 * @param settings - preset settings
 * @param env - macro environment
 * @returns the content to send
 */
export function formatMarker(prompt: PromptEntry, content: string, settings: PresetSettings, env: MacroEnvironment): string {
  const marker = FIELD_MARKERS[prompt.identifier];
  if (marker !== undefined) {
    const format = settings[marker.format];
    if (format === undefined || prompt.content.trim() !== `{{${marker.field}}}` || content.trim() === '') return content;
    return expandMacros(format, env);
  }
  if (WORLD_INFO_MARKERS.has(prompt.identifier) && settings.wiFormat !== undefined && content.trim() !== '') {
    return settings.wiFormat.includes('{0}') ? settings.wiFormat.replace('{0}', content) : content;
  }
  return content;
}

/**
 * SillyTavern's continue spacing: the preset's `continue_postfix` follows the reply being
 * continued — in the prompt, and between that reply and the continuation in the saved reply —
 * unless the reply already ends with a space (script.js: `if (!cyclePrompt.endsWith(' '))
 * cyclePrompt += continue_postfix; continue_mag += continue_postfix`).
 * @param history - the chat history, ending with the reply being continued
 * @param settings - the preset's settings
 * @returns the history with the postfix on its last assistant message, and the postfix applied ('' for none)
 */
export function continuedHistory(history: readonly ChatMessage[], settings: PresetSettings): { history: readonly ChatMessage[]; join: string } {
  const at = history.findLastIndex((message) => message.role === 'assistant');
  const last = at >= 0 ? history[at] : undefined;
  const postfix = settings.continuePostfix ?? '';
  if (last === undefined || postfix === '' || last.content.endsWith(' ')) return { history, join: '' };
  const joined = [...history];
  joined[at] = { ...last, content: `${last.content}${postfix}` };
  return { history: joined, join: postfix };
}

/** The last steps: continue prefill, impersonate instructions, prefill, squashing. */
export interface FinishOptions {
  readonly settings: PresetSettings;
  readonly env: MacroEnvironment;
  readonly type: GenerationType;
  readonly keepUnsquashed: ReadonlySet<ChatMessage>;
}

/**
 * Applies the preset's generation-type prompts, the assistant prefill and system-message squashing.
 * - `continue`: with `continue_prefill`, the last assistant message moves to the end (plus
 *   `continue_postfix`) to be continued (the nudge otherwise sent ends the chat block, see
 *   {@link buildChatBlock}).
 * - `impersonate`: `impersonation_prompt` as a system message, then `assistant_impersonation`.
 * - `normal`: `assistant_prefill` as the final assistant message.
 * @param messages - the assembled messages
 * @param options - settings, environment, generation type
 * @returns the final messages
 */
export function finishMessages(messages: readonly ChatMessage[], options: FinishOptions): ChatMessage[] {
  const { settings, env, type } = options;
  let result = [...messages];
  const expand = (text: string | undefined) => (text === undefined ? '' : expandMacros(text, env));
  if (type === 'continue') {
    const lastIndex = result.findLastIndex((message) => message.role === 'assistant');
    const last = lastIndex >= 0 ? result[lastIndex] : undefined;
    if (last !== undefined && settings.continuePrefill === true) {
      result.splice(lastIndex, 1);
      // The postfix is already on it (continuedHistory).
      result.push(last);
    }
  } else if (type === 'impersonate') {
    const instruction = expand(settings.impersonationPrompt);
    if (instruction.trim() !== '') result.push({ role: 'system', content: instruction });
  }
  if (settings.squashSystemMessages === true) result = squashSystemMessages(result, options.keepUnsquashed);
  const prefill = type === 'impersonate' ? expand(settings.assistantImpersonation) : type === 'normal' ? expand(settings.assistantPrefill) : '';
  if (prefill.trim() !== '') result.push({ role: 'assistant', content: prefill });
  return result;
}
