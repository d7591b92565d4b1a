import type { ChatMessage } from '@troupe/kernel';
import type { ItemizedBlock, PromptBlockSource } from '../wire/prompt.js';

/** What the turn knew about the prompt's parts, to tell the blocks apart. */
export interface PromptParts {
  /** The player's input of the turn. */
  readonly input: string;
  /** The chat history the kernel gave the turn. */
  readonly history: readonly ChatMessage[];
  /** The reply being continued (a `continue` turn), if any. */
  readonly continued?: string;
  readonly worldInfo?: readonly string[];
  readonly dioCompiledPrompt?: string;
  readonly storyDraft?: string;
}

/** How much text of each block is kept with the itemization (the log is not a second copy of the prompt). */
export const PREVIEW_CHARS = 600;
/**
 * History blocks keep only a short start: they are the chat's own messages (shown in full in the
 * chat), and every turn's prompt repeats all of them — full previews would grow the log with the
 * square of the chat's length.
 */
export const HISTORY_PREVIEW_CHARS = 80;
// A world-info entry shorter than this could appear inside any message by chance.
const MIN_MATCH_CHARS = 8;

/**
 * Itemizes the actor's prompt: each message with its source, role, name and token count.
 * @param messages - the prompt as it was sent (`prepared.history` after every assembler)
 * @param parts - what the turn knew about the prompt's parts
 * @param countMessage - tokens of one message (the turn's `tokenBudget.countMessage`)
 * @returns one block per message, in order
 */
export function itemizePrompt(messages: readonly ChatMessage[], parts: PromptParts, countMessage: (message: ChatMessage) => number): ItemizedBlock[] {
  const inputAt = lastIndex(messages, (message) => message.role === 'user' && parts.input.trim() !== '' && message.content.includes(parts.input.trim()));
  const history = new Set(parts.history.map((message) => `${message.role}\u0000${message.content.trim()}`));
  return messages.map((message, index) => {
    const source = classify(message, index, inputAt, history, parts);
    const preview = message.content.slice(0, source === 'history' ? HISTORY_PREVIEW_CHARS : PREVIEW_CHARS);
    return {
      index,
      role: message.role,
      ...(message.name !== undefined ? { name: message.name } : {}),
      source,
      tokens: countMessage(message),
      chars: message.content.length,
      preview,
      truncated: preview.length < message.content.length,
    };
  });
}

function classify(message: ChatMessage, index: number, inputAt: number, history: ReadonlySet<string>, parts: PromptParts): PromptBlockSource {
  if (index === inputAt) return 'input';
  const content = message.content.trim();
  if (parts.continued !== undefined && message.role === 'assistant' && index > inputAt && inputAt >= 0 && content === parts.continued.trim()) return 'continuation';
  if (history.has(`${message.role}\u0000${content}`)) return 'history';
  if (contains(content, parts.dioCompiledPrompt)) return 'dio';
  if (contains(content, parts.storyDraft)) return 'storyDraft';
  if (parts.worldInfo?.some((entry) => contains(content, entry))) return 'worldInfo';
  // The assembler may prefix names ("Lia: …") to history messages.
  if (message.role !== 'system' && parts.history.some((earlier) => earlier.role === message.role && earlier.content.trim().length >= MIN_MATCH_CHARS && content.endsWith(earlier.content.trim()))) return 'history';
  return 'prompt';
}

function contains(content: string, part: string | undefined): boolean {
  const text = part?.trim();
  return text !== undefined && text.length >= MIN_MATCH_CHARS && content.includes(text);
}

function lastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index--) if (predicate(items[index] as T)) return index;
  return -1;
}
