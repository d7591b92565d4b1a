import { appendSettleBlock } from '@troupe/kernel/storage';

/**
 * The exact text of a settlement block as the store appended it: its marker line and its text,
 * ending with a line break.
 * @param marker - the settlement's marker
 * @param text - what it appended to the file
 * @returns the block
 */
export function blockText(marker: string, text: string): string {
  return appendSettleBlock('', marker, text);
}

/**
 * A file's text as its blocks are found in it: ending with a line break. A player's save (or an
 * editor) may drop the file's last one, which would hide the file's last block from an exact
 * match and leave it there as if the player had written it; the next settlement puts the line
 * break back anyway (`appendSettleBlock`), so adding it changes nothing the player keeps.
 * @param content - the file's text
 * @returns the text, with a final line break unless it is empty
 */
export function asLineEnded(content: string): string {
  return content === '' || content.endsWith('\n') ? content : `${content}\n`;
}

// A block as a pattern whose line breaks match LF or CRLF, for a file the player's tools
// converted (Git for Windows' `core.autocrlf` checks a synced workspace out with CRLF).
function lineEndingBlind(block: string): RegExp {
  return new RegExp(block.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\r?\n/g, '\\r?\\n'));
}

/**
 * Where a block stands in a file's text: its exact text, or the same lines with other line
 * endings (only a file that holds a carriage return is searched that way).
 * @param content - the file's text (line-ended, see {@link asLineEnded})
 * @param block - the block, as {@link blockText} makes it
 * @returns the first occurrence's start and end, or undefined
 */
export function findBlock(content: string, block: string): readonly [start: number, end: number] | undefined {
  const exact = content.indexOf(block);
  if (exact >= 0) return [exact, exact + block.length];
  if (!content.includes('\r')) return undefined;
  const found = lineEndingBlind(block).exec(content);
  return found ? [found.index, found.index + found[0].length] : undefined;
}

/**
 * Replaces a block's first occurrence ({@link findBlock}); the rest of the file keeps its bytes,
 * line endings included.
 * @param content - the file's text
 * @param block - the block to replace
 * @param replacement - its replacement ('' removes it)
 * @returns the text, unchanged when the block is not there
 */
export function replaceBlock(content: string, block: string, replacement: string): string {
  const span = findBlock(content, block);
  return span ? `${content.slice(0, span[0])}${replacement}${content.slice(span[1])}` : content;
}
