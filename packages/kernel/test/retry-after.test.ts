import { retryAfterMs } from '@troupe/kernel/util';
import { describe, expect, it } from 'vitest';

const now = Date.parse('2026-12-02T01:00:00Z');

describe('retryAfterMs (the wait a server asked for)', () => {
  it('reads Retry-After in seconds, fractional too', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2_000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
  });

  it('reads Retry-After as an HTTP date relative to now, never negative', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 02 Dec 2026 01:00:30 GMT' }), now)).toBe(30_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 02 Dec 2026 00:59:00 GMT' }), now)).toBe(0);
  });

  it('prefers retry-after-ms (OpenAI-style) over Retry-After', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
  });

  it('is undefined when the server said nothing usable', () => {
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': '-3' }), now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});
