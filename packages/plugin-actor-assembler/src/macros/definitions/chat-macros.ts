import { type MacroTable, macro } from '../definition.js';
import type { MacroChatMessage, MacroEnvironment } from '../environment.js';

function last(env: MacroEnvironment, role?: MacroChatMessage['role']): string {
  const messages = env.messages ?? [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message !== undefined && message.role !== 'system' && (role === undefined || message.role === role)) return message.content;
  }
  return '';
}

/** Macros that read the chat so far. */
export const CHAT_MACROS: MacroTable = {
  lastmessage: macro(0, 0, ({ env }) => last(env)),
  lastusermessage: macro(0, 0, ({ env }) => last(env, 'user')),
  lastcharmessage: macro(0, 0, ({ env }) => last(env, 'assistant')),
  lastmessageid: macro(0, 0, ({ env }) => ((env.messages?.length ?? 0) > 0 ? String((env.messages?.length ?? 0) - 1) : '')),
};
