import type { ChatMessage } from '@troupe/kernel';
import { isKnowledgeHeading, readPromptBlocks, STAGE_BLOCKS, type StageBlockId } from '@troupe/kernel/stage-prompt';

// The stage message format is declared in @troupe/kernel/stage-prompt (plugin-story writes it,
// this package reads it); these helpers add what a simulated model needs on top.
export type { PromptBlock } from '@troupe/kernel/stage-prompt';

/**
 * The labelled blocks of a whole request, keyed by lower-cased heading.
 * @param messages - the request's messages
 * @returns heading (lower case) → body
 */
export function readBlocks(messages: readonly ChatMessage[]): ReadonlyMap<string, string> {
  return readPromptBlocks(messages);
}

/**
 * The body of the declared block `id` (for `knowledge`: any character's knowledge block).
 * @param blocks - from {@link readBlocks}
 * @param id - a block id from `STAGE_BLOCKS`
 */
export function stageBlock(blocks: ReadonlyMap<string, string>, id: StageBlockId): string | undefined {
  if (id === 'knowledge') {
    for (const [heading, body] of blocks) if (isKnowledgeHeading(heading)) return body;
    return undefined;
  }
  return blocks.get(STAGE_BLOCKS[id].toLowerCase());
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
