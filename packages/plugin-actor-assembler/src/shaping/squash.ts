import type { ChatMessage } from '@troupe/kernel';

/**
 * SillyTavern's `squash_system_messages`: consecutive unnamed system messages become one (joined
 * by a newline); empty system messages are dropped. Messages in `keep` (the new-chat prompt) are
 * never merged.
 * @param messages - the messages
 * @param keep - messages that stay on their own
 * @returns the squashed list (untouched messages are the same objects)
 */
export function squashSystemMessages(messages: readonly ChatMessage[], keep: ReadonlySet<ChatMessage>): ChatMessage[] {
  const result: ChatMessage[] = [];
  const squashable = (message: ChatMessage | undefined): message is ChatMessage => message !== undefined && message.role === 'system' && message.name === undefined && !keep.has(message);
  for (const message of messages) {
    if (message.role === 'system' && message.content === '') continue;
    const last = result[result.length - 1];
    if (squashable(message) && squashable(last)) result[result.length - 1] = { ...last, content: `${last.content}\n${message.content}` };
    else result.push(message);
  }
  return result;
}
