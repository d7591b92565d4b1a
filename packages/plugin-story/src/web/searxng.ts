import { formatIssues, systemClock } from '@troupe/kernel';
import { abortReason, describeError, runWithin } from '@troupe/kernel/util';
import * as z from 'zod';
import { StoryError } from '../errors.js';
import type { WebSearchOptions, WebSearchProvider, WebSearchResult } from './web-search.js';

/** Options of {@link searxngProvider}. */
export interface SearxngOptions {
  /** The SearXNG instance, e.g. `http://127.0.0.1:8888` (JSON output must be enabled on it). */
  readonly baseUrl: string;
  /** Per-request timeout in ms (default 8000). */
  readonly timeoutMs?: number;
  /** Injected `fetch` (default: the global one). */
  readonly fetch?: typeof fetch;
  /** Largest response body accepted, in bytes (default 2 MB). */
  readonly maxResponseBytes?: number;
}

const SearxngResponseSchema = z.object({
  results: z.array(z.object({ title: z.string().default(''), url: z.string(), content: z.string().default('') }).loose()),
});

/**
 * A {@link WebSearchProvider} over SearXNG's JSON API (`GET /search?q=…&format=json`).
 * @param options - base URL, timeout, fetch
 * @returns the provider
 * @throws {StoryError} STORY_WEB_SEARCH_FAILED (from `search`) on HTTP errors, timeouts, oversized or malformed responses
 */
export function searxngProvider(options: SearxngOptions): WebSearchProvider {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 8000;
  const maxBytes = options.maxResponseBytes ?? 2 * 1024 * 1024;
  return {
    id: 'searxng',
    async search(query: string, { signal, limit }: WebSearchOptions): Promise<readonly WebSearchResult[]> {
      if (signal.aborted) throw abortReason(signal);
      const url = new URL('search', options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const fail = (message: string, cause?: unknown) => new StoryError('STORY_WEB_SEARCH_FAILED', `SearXNG search failed: ${message}`, cause === undefined ? {} : { cause });
      let body: string;
      try {
        // The request and its body read share one deadline; its signal also follows the caller's.
        body = await runWithin(systemClock, timeoutMs, signal, () => fail(`no answer within ${timeoutMs} ms`), async (requestSignal) => {
          const response = await doFetch(url, { signal: requestSignal, headers: { accept: 'application/json' } });
          if (!response.ok) throw fail(`HTTP ${response.status}`);
          return response.text();
        });
      } catch (error) {
        if (signal.aborted) throw abortReason(signal);
        if (StoryError.isInstance(error)) throw error;
        throw fail(describeError(error).message, error);
      }
      if (Buffer.byteLength(body, 'utf8') > maxBytes) throw fail(`response larger than ${maxBytes} bytes`);
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch (error) {
        throw fail('response is not JSON', error);
      }
      const parsed = SearxngResponseSchema.safeParse(json);
      if (!parsed.success) throw fail(`unexpected response shape: ${formatIssues(parsed.error, { root: 'body' })}`);
      return parsed.data.results.slice(0, limit).map((r) => ({ title: r.title, url: r.url, snippet: r.content }));
    },
  };
}
