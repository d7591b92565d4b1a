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
  const squashable = (message: ChatMessage): boolean => message.role === 'system' && message.name === undefined && !keep.has(message);
  // A run of squashable messages is joined once at its end (not re-copied per message).
  let run: ChatMessage[] = [];
  const flush = () => {
    const [first] = run;
    if (first !== undefined) result.push(run.length === 1 ? first : { ...first, content: run.map((message) => message.content).join('\n') });
    run = [];
  };
  for (const message of messages) {
    if (message.role === 'system' && message.content === '') continue;
    if (squashable(message)) {
      run.push(message);
      continue;
    }
    flush();
    result.push(message);
  }
  flush();
  return result;
}
