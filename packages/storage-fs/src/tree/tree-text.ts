import { isUtf8 } from 'node:buffer';
import { KernelStorageError } from '@troupe/kernel';

/**
 * The text of a tree file, decoded strictly. A tree's files are the player's text, and they edit
 * them in their own editors: one saved in a legacy encoding (GBK, Shift-JIS, Latin-1) is not
 * UTF-8, and a lenient decode would turn it into U+FFFD mojibake that the next write (a
 * settlement replacing a block, a save) would store over the player's bytes for good. So such a
 * file is reported, naming it, and nothing is read from it or written over it. A UTF-8 BOM is
 * kept as U+FEFF, as before.
 * @param bytes - the file's bytes
 * @param file - the file's path on disk, for the message
 * @returns the text
 * @throws {KernelStorageError} TREE_CORRUPT when the bytes are not UTF-8
 */
export function treeFileText(bytes: Buffer, file: string): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  throw new KernelStorageError(
    'TREE_CORRUPT',
    `${file} is not UTF-8 text (saved in another encoding, such as GBK, or not text at all): open it in an editor and save it as UTF-8; nothing was read from it or written to it`,
  );
}
