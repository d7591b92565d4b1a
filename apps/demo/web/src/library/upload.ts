import { ApiFailure } from '../api.js';
import type { ApiProblem } from '../../../src/wire/api-problem.js';

/**
 * Uploads a file to a library import route as the raw body (the server sniffs its format; the
 * name is only kept for the record).
 * @param path - e.g. `/api/characters`
 * @param file - the chosen file
 * @returns the created item
 * @throws {ApiFailure} with the server's code and message
 */
export async function uploadFile<T>(path: string, file: File): Promise<T> {
  const response = await fetch(`${path}?fileName=${encodeURIComponent(file.name)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: file,
  });
  const data: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const problem = data as Partial<ApiProblem> | undefined;
    throw new ApiFailure(response.status, { code: problem?.code ?? `HTTP_${response.status}`, message: problem?.message ?? response.statusText });
  }
  return data as T;
}

/** Formats an error for an error box: `CODE: message` when it has a code. */
export function problemText(error: unknown): string {
  if (error instanceof ApiFailure) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
