import type { ChatMessage } from '@troupe/kernel';
import type { PromptRole } from './preset.js';

/** One in-chat injection: text placed `depth` messages from the end of the chat. */
export interface ChatInjection {
  readonly content: string;
  readonly role: PromptRole;
  /** 0 = after the newest message, 1 = before it, … */
  readonly depth: number;
  /** Within one depth, higher orders sit closer to the end (SillyTavern's `injection_order`, default 100). */
  readonly order?: number;
  /**
   * An extension prompt (a card's `depth_prompt`, an author's note): joined after the preset
   * prompts of the same role at order 100, as SillyTavern does.
   */
  readonly extension?: boolean;
}

/** The deepest depth honoured; deeper injections go to the start of the chat. */
export const MAX_INJECTION_DEPTH = 10_000;
const ROLES: readonly PromptRole[] = ['system', 'user', 'assistant'];
const EXTENSION_ORDER = 100;

/**
 * Builds the messages injected at one depth, in chronological order. SillyTavern groups by order
 * (highest first), then by role (system, user, assistant), joins each group's texts with a
 * newline, then inserts the list into the chat counted from the newest message, which reverses
 * it: so in the final prompt lower orders come first and, within one order, assistant, then
 * user, then system (the most important closest to the end).
 */
function messagesAtDepth(injections: readonly ChatInjection[]): ChatMessage[] {
  const orders = new Map<number, ChatInjection[]>([[EXTENSION_ORDER, []]]);
  for (const injection of injections) {
    const order = injection.extension === true ? EXTENSION_ORDER : (injection.order ?? EXTENSION_ORDER);
    const group = orders.get(order) ?? [];
    group.push(injection);
    orders.set(order, group);
  }
  const newestFirst: ChatMessage[] = [];
  for (const order of [...orders.keys()].sort((a, b) => b - a)) {
    const group = orders.get(order) ?? [];
    for (const role of ROLES) {
      const own = group.filter((injection) => injection.role === role && injection.extension !== true).map((injection) => injection.content);
      const extensions = group.filter((injection) => injection.role === role && injection.extension === true).map((injection) => injection.content);
      const joined = [own.join('\n'), extensions.join('\n')]
        .filter((text) => text !== '')
        .map((text) => text.trim())
        .join('\n');
      if (joined !== '') newestFirst.push({ role, content: joined });
    }
  }
  return newestFirst.reverse();
}

/**
 * Places in-chat injections into a chat exactly as SillyTavern's prompt manager does: by depth
 * counted from the newest message (depths count original messages, not injected ones), then by
 * order, then by role. Empty injections are skipped.
 * @param chat - the chat, oldest first (its objects are reused, never changed)
 * @param injections - the injections
 * @returns a new array with the injections in place
 */
export function placeInjections(chat: readonly ChatMessage[], injections: readonly ChatInjection[]): ChatMessage[] {
  const byDepth = new Map<number, ChatInjection[]>();
  for (const injection of injections) {
    if (injection.content === '') continue;
    const depth = Math.min(Math.max(0, Math.trunc(injection.depth)), MAX_INJECTION_DEPTH);
    const list = byDepth.get(depth) ?? [];
    list.push(injection);
    byDepth.set(depth, list);
  }
  if (byDepth.size === 0) return [...chat];
  const result: ChatMessage[] = [];
  // Walk from the oldest message; depth d sits right after the message that has d messages after it.
  const maxDepth = Math.max(...byDepth.keys());
  for (let depth = maxDepth; depth >= chat.length; depth--) {
    const list = byDepth.get(depth);
    if (list !== undefined) result.push(...messagesAtDepth(list));
  }
  chat.forEach((message, index) => {
    result.push(message);
    const list = byDepth.get(chat.length - 1 - index);
    if (list !== undefined) result.push(...messagesAtDepth(list));
  });
  // Depth 0 was handled after the newest message; a chat with no messages still gets depth 0.
  return result;
}
