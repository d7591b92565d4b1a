import type { Row } from '../db/database.js';

/**
 * A file's text as stored: UTF-8 bytes (a `text` column cannot hold U+0000). Lone surrogates
 * become U+FFFD, exactly as when the filesystem store writes the file.
 * @param text - the file's content
 */
export function toBytes(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

/**
 * The `{path: text}` map of file rows.
 * @param rows - rows with `path` and `content` (bytea)
 */
export function filesOf(rows: readonly Row[]): Record<string, string> {
  const files: Record<string, string> = {};
  for (const row of rows) {
    if (typeof row.path === 'string' && Buffer.isBuffer(row.content)) files[row.path] = row.content.toString('utf8');
  }
  return files;
}
