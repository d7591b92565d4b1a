import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `<repo>/../shared/corpus`: real user files laid beside the clone (never copied into the repo). */
export const CORPUS_DIR = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../../..'), '..', 'shared', 'corpus');

/**
 * The corpus files of one kind.
 * @param kind - `cards`, `presets` or `lorebooks`
 * @returns file names, sorted
 */
export function corpusFiles(kind: 'cards' | 'presets' | 'lorebooks'): string[] {
  return readdirSync(join(CORPUS_DIR, kind)).sort();
}

/**
 * One corpus file's bytes.
 * @param kind - its folder
 * @param name - its name
 * @returns the bytes
 */
export function corpusBytes(kind: 'cards' | 'presets' | 'lorebooks', name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(CORPUS_DIR, kind, name)));
}

/**
 * Uploads a file to a library import route the way the web app does (raw body).
 * @param baseUrl - the server
 * @param path - e.g. `/api/characters`
 * @param bytes - the file
 * @param fileName - its name
 * @returns status and parsed body
 */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers field by field
export async function upload(baseUrl: string, path: string, bytes: Uint8Array, fileName: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${path}?fileName=${encodeURIComponent(fileName)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: Buffer.from(bytes),
  });
  return { status: response.status, body: await response.json() };
}
