import type { ChatMessage } from '@troupe/kernel';

/** One `## Heading` block of a prompt message. */
export interface PromptBlock {
  /** The heading text, trimmed ("Player input"). */
  readonly heading: string;
  /** Everything under the heading up to the next `## ` heading, trimmed. */
  readonly body: string;
}

const BLOCK_HEADING = /^##[ \t]+(.+?)[ \t]*$/;

// The labels the story pipeline gives its blocks. When a message uses them, only they split it,
// so `##` headings inside a block's content (a visible reply with sections) stay in that block.
const SCAFFOLD_HEADINGS: readonly RegExp[] = [
  /^player input$/i,
  /^section reference$/i,
  /^director's plan$/i,
  /^visible reply$/i,
  /^outline$/i,
  /^foreshadowing$/i,
  /^participants$/i,
  /^persona$/i,
  /^what .+ knows$/i,
  /^public history$/i,
  /^recent conversation$/i,
  /^reference snippets$/i,
  /^research brief$/i,
  /^character proposals$/i,
  /^sections$/i,
];

function isScaffold(heading: string): boolean {
  return SCAFFOLD_HEADINGS.some((pattern) => pattern.test(heading));
}

/**
 * Splits a message into its `## ` blocks. Text before the first heading is not a block; `#` and
 * `###` lines stay inside the body they belong to (a persona file's `# Name` title, for example).
 * When the message uses the story pipeline's block labels ("Player input", "Visible reply", …),
 * only those start blocks; other `##` lines are content.
 * @param text - a message's content
 * @returns the blocks in order (empty when the text has no `## ` heading)
 */
export function parseBlocks(text: string): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const allLines = text.split('\n');
  const scaffolded = allLines.some((line) => isScaffold(BLOCK_HEADING.exec(line)?.[1] ?? ''));
  let heading: string | undefined;
  let lines: string[] = [];
  const flush = () => {
    if (heading !== undefined) blocks.push({ heading, body: lines.join('\n').trim() });
  };
  for (const line of allLines) {
    const match = BLOCK_HEADING.exec(line);
    if (match && (!scaffolded || isScaffold(match[1]!))) {
      flush();
      heading = match[1]!;
      lines = [];
    } else if (heading !== undefined) {
      lines.push(line);
    }
  }
  flush();
  return blocks;
}

/**
 * The labelled blocks of a whole request, keyed by lower-cased heading; a later message's block
 * wins over an earlier one with the same heading.
 * @param messages - the request's messages
 * @returns heading (lower case) → body
 */
export function readBlocks(messages: readonly ChatMessage[]): ReadonlyMap<string, string> {
  const blocks = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'assistant' || message.role === 'tool') continue;
    for (const block of parseBlocks(message.content)) blocks.set(block.heading.toLowerCase(), block.body);
  }
  return blocks;
}

/**
 * The body of the first block whose heading matches `pattern`.
 * @param blocks - from {@link readBlocks}
 * @param pattern - tested against the lower-cased heading
 */
export function blockMatching(blocks: ReadonlyMap<string, string>, pattern: RegExp): string | undefined {
  for (const [heading, body] of blocks) if (pattern.test(heading)) return body;
  return undefined;
}

const PLACEHOLDER = /^\((?:none|empty|nothing yet)\)$/i;

/**
 * The readable lines of a block body: no Markdown headings, HTML comments, placeholders such as
 * "(none)", and list bullets removed from the start of items.
 * @param body - a block body (may be undefined)
 * @returns clean, non-empty lines
 */
export function plainLines(body: string | undefined): string[] {
  if (!body) return [];
  return body
    .replace(/<!--[\s\S]*?-->/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !PLACEHOLDER.test(line))
    .map((line) => line.replace(/^(?:[-*+]|\d+[.)])\s+/, '').trim())
    .filter((line) => line !== '');
}

/**
 * The first `# Title` line of a body (a persona or knowledge file's title), without the hashes.
 * @param body - a block body
 */
export function titleOf(body: string | undefined): string | undefined {
  const match = /^#\s+(.+?)\s*$/m.exec(body ?? '');
  return match?.[1];
}
