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
