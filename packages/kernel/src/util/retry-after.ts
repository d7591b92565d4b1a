/** Anything with a `get(name)` for HTTP headers: `Headers`, the `openai` SDK's error headers. */
export interface HeaderLookup {
  get(name: string): string | null | undefined;
}

/**
 * The wait a server asked for before a retry: `retry-after-ms` (OpenAI-style, milliseconds), else
 * `Retry-After` as seconds or as an HTTP date. Callers decide whether to wait that long — a retry
 * loop should refuse a wait beyond what it can afford instead of freezing for it.
 * @param headers - the response headers (missing: `undefined`)
 * @param now - the current time in ms, for an HTTP-date `Retry-After` (the harness clock's `now()`)
 * @returns milliseconds (0 or more), or `undefined` when the server did not say or said nonsense
 */
export function retryAfterMs(headers: HeaderLookup | null | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number.parseFloat(value) * 1000;
  // An HTTP date names its weekday and month; a bare number that is not seconds ("-3") is nonsense.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
