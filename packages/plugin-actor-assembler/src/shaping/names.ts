import type { ChatMessage } from '@troupe/kernel';
import type { NamesBehavior } from '../preset-settings.js';

/**
 * Applies SillyTavern's `names_behavior` to a chat message: `content` prefixes `Name: `,
 * `completion` sets the message's `name`, `default` prefixes names only in a group chat (for
 * messages not from the user), `none` leaves it. System messages are never named.
 * @param message - a chat message (not changed)
 * @param behavior - the setting
 * @param names - the user's and character's names, and whether this is a group chat
 * @returns the same object when nothing changes, else a new message
 */
export function applyNamesBehavior(message: ChatMessage, behavior: NamesBehavior, names: { user: string; char: string; group: boolean }): ChatMessage {
  if (behavior === 'none' || (message.role !== 'user' && message.role !== 'assistant')) return message;
  const name = message.role === 'user' ? names.user : (message.name ?? names.char);
  if (behavior === 'completion') return message.name === name ? message : { ...message, name };
  if (behavior === 'default' && (!names.group || message.role === 'user')) return message;
  if (message.content.startsWith(`${name}: `)) return message;
  return { ...message, content: `${name}: ${message.content}` };
}
