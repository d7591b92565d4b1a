import { describeError } from '@troupe/kernel/util';

/** Where the server writes one line per failed request (default: stderr). */
export type ErrorLogSink = (line: string) => void;

/** The longest cause written (the line stays one readable line). */
const MAX_CAUSE_CHARS = 600;

// Credentials that can end up inside an error message (a model server echoing a header, a URL
// with a key in its query): masked before anything is written.
const SECRET_PATTERNS: readonly [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 ***'],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, 'sk-***'],
  [/([?&](?:api[_-]?key|key|token|access_token|secret|password)=)[^&\s]+/gi, '$1***'],
  [/("?(?:api[_-]?key|authorization|token|secret|password)"?\s*[:=]\s*"?)[^"\s,}]+/gi, '$1***'],
];

/**
 * Masks credentials in a text.
 * @param text - an error message
 * @returns the text with tokens, keys and passwords replaced by `***`
 */
export function redactSecrets(text: string): string {
  return SECRET_PATTERNS.reduce((current, [pattern, replacement]) => current.replace(pattern, replacement), text);
}

/**
 * The cause of a failure as one line: each error of the `cause` chain as `Name CODE: message`.
 * @param error - what was thrown (may be undefined when a route answered 5xx itself)
 * @returns one line, credentials masked, at most ~600 characters
 */
export function describeCause(error: unknown): string {
  if (error === undefined) return '(the route answered with this status itself)';
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const described = describeError(current);
    const name = current instanceof Error ? current.name : typeof current;
    parts.push(`${name}${described.code ? ` ${described.code}` : ''}: ${described.message}`);
    current = current instanceof Error ? current.cause : undefined;
  }
  const line = redactSecrets(parts.join(' ← ').replace(/\s+/g, ' ').trim());
  return line.length > MAX_CAUSE_CHARS ? `${line.slice(0, MAX_CAUSE_CHARS)}…` : line;
}

/**
 * One log line for a 5xx answer: time, status, method, path (never the query, which may carry
 * tokens) and the cause.
 * @param request - method and path of the request
 * @param status - the status answered
 * @param error - what caused it, if known
 * @returns e.g. `2026-12-01T17:00:00.000Z 500 GET /api/stories/x — KernelStorageError TREE_CORRUPT: …`
 */
export function serverErrorLine(request: { readonly method: string; readonly path: string }, status: number, error: unknown): string {
  return `${new Date().toISOString()} ${status} ${request.method} ${request.path} — ${describeCause(error)}`;
}

/** The default sink: one line on stderr. */
export const stderrSink: ErrorLogSink = (line) => {
  process.stderr.write(`${line}\n`);
};
