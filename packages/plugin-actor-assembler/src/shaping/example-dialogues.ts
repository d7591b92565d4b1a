import type { ChatMessage } from '@troupe/kernel';

/**
 * Splits a card's `mes_example` into example dialogues at each `<START>` (case-insensitive), as
 * SillyTavern does. Text before the first `<START>` is a dialogue of its own: `parseMesExamples`
 * puts a `<START>` in front of a text that does not begin with one. Blank dialogues are left out.
 * @param examples - the expanded example text
 * @returns one text per dialogue, trimmed
 */
export function splitExampleDialogues(examples: string): string[] {
  if (examples.trim() === '') return [];
  return examples
    .split(/<START>/i)
    .map((block) => block.trim())
    .filter((block) => block !== '');
}

/**
 * Makes a text its own example dialogue (or dialogues) when joined with others into a
 * `mes_example` text: a `<START>` is added in front unless it already starts with one, as
 * SillyTavern's `parseMesExamples` does for world-info example entries.
 * @param text - an entry's expanded text
 * @returns the text starting with `<START>`, or empty for an empty text
 */
export function asExampleBlock(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  return /^<START>/i.test(trimmed) ? trimmed : `<START>\n${trimmed}`;
}

/**
 * Turns one example dialogue into messages: a line starting with `User:` begins a user example,
 * `Char:` an assistant example, other lines continue the current one. Like SillyTavern, they are
 * sent as system messages named `example_user` / `example_assistant`, with the name prefix removed.
 * @param dialogue - one dialogue (without `<START>`)
 * @param user - the user's name
 * @param char - the character's name
 * @returns the messages
 */
export function exampleMessages(dialogue: string, user: string, char: string): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let lines: string[] = [];
  let speaker: 'user' | 'char' | undefined;
  const flush = () => {
    if (speaker === undefined || lines.length === 0) {
      lines = [];
      return;
    }
    const prefix = `${speaker === 'user' ? user : char}:`;
    const text = lines.join('\n').replace(prefix, '').trim();
    if (text !== '') messages.push({ role: 'system', name: speaker === 'user' ? 'example_user' : 'example_assistant', content: text });
    lines = [];
  };
  for (const line of dialogue.split('\n')) {
    const next = line.startsWith(`${user}:`) ? 'user' : line.startsWith(`${char}:`) ? 'char' : undefined;
    if (next !== undefined) {
      flush();
      speaker = next;
    }
    // Lines before the first speaker belong to the character (SillyTavern treats them as the bot's).
    speaker ??= 'char';
    lines.push(line);
  }
  flush();
  return messages;
}
