import { STAGE_BLOCKS } from './stage-blocks.js';

/** One `## Heading` block of a stage message. */
export interface PromptBlock {
  /** The heading text, trimmed ("Player input"). */
  readonly heading: string;
  /** Everything under the heading up to the next block heading, trimmed. */
  readonly body: string;
}

const BLOCK_HEADING = /^##[ \t]+(.+?)[ \t]*$/;
const KNOWLEDGE = new RegExp(`^${STAGE_BLOCKS.knowledge.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('\\{name\\}', '.+')}$`, 'i');
const FIXED_HEADINGS: ReadonlySet<string> = new Set(Object.values(STAGE_BLOCKS).map((heading) => heading.toLowerCase()));

/**
 * True when `heading` is a character's knowledge heading (`What <name> knows`).
 * @param heading - a heading without the `## `
 */
export function isKnowledgeHeading(heading: string): boolean {
  return KNOWLEDGE.test(heading);
}

/**
 * True when `heading` is one of the declared stage block headings (case-insensitive).
 * @param heading - a heading without the `## `
 */
export function isStageHeading(heading: string): boolean {
  return FIXED_HEADINGS.has(heading.toLowerCase()) || KNOWLEDGE.test(heading);
}

/**
 * Writes a stage message: one `## heading` block per entry, separated by blank lines.
 * @param blocks - heading and body pairs, in order (entries may carry more after the body, such
 *   as plugin-story's fit mode; it is ignored)
 * @returns the message content
 */
export function renderPromptBlocks(blocks: ReadonlyArray<readonly [heading: string, body: string, ...rest: unknown[]]>): string {
  // One concatenation per block (no array of block strings to join): every stage call renders one.
  let text = '';
  for (let index = 0; index < blocks.length; index++) {
    const [heading, body] = blocks[index] as readonly [string, string];
    text += index === 0 ? `## ${heading}\n${body}` : `\n\n## ${heading}\n${body}`;
  }
  return text;
}

/**
 * Splits a message into its `## ` blocks. Text before the first heading is not a block; `#` and
 * `###` lines stay inside their body. When the message uses the declared stage headings, only
 * those start blocks, so `##` lines inside content (a reply with sections) stay content.
 * @param text - a message's content
 * @returns the blocks in order (empty when the text has no `## ` heading)
 */
export function parsePromptBlocks(text: string): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const allLines = text.split('\n');
  const declared = allLines.some((line) => isStageHeading(BLOCK_HEADING.exec(line)?.[1] ?? ''));
  let heading: string | undefined;
  let lines: string[] = [];
  const flush = () => {
    if (heading !== undefined) blocks.push({ heading, body: lines.join('\n').trim() });
  };
  for (const line of allLines) {
    const match = BLOCK_HEADING.exec(line);
    const candidate = match?.[1];
    if (candidate !== undefined && (!declared || isStageHeading(candidate))) {
      flush();
      heading = candidate;
      lines = [];
    } else if (heading !== undefined) {
      lines.push(line);
    }
  }
  flush();
  return blocks;
}

/**
 * The blocks of a whole request's system and user messages, keyed by lower-cased heading; a
 * later message's block wins over an earlier one with the same heading.
 * @param messages - the request's messages
 * @returns heading (lower case) → body
 */
export function readPromptBlocks(messages: ReadonlyArray<{ readonly role: string; readonly content: string }>): ReadonlyMap<string, string> {
  const blocks = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'assistant' || message.role === 'tool') continue;
    for (const block of parsePromptBlocks(message.content)) blocks.set(block.heading.toLowerCase(), block.body);
  }
  return blocks;
}
