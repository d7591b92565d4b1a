import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { searxngProvider, STORY_EVENTS } from '../src/index.js';
import { requestText, storyHarness } from './helpers.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function fakeSearxng(handler: (url: URL, res: import('node:http').ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => handler(new URL(req.url ?? '/', 'http://127.0.0.1'), res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

describe('SearXNG web search', () => {
  it('queries /search?format=json and maps results, capped by limit', async () => {
    const seen: URL[] = [];
    const baseUrl = await fakeSearxng((url, res) => {
      seen.push(url);
      json(res, 200, { results: [1, 2, 3].map((i) => ({ title: `T${i}`, url: `https://example.test/${i}`, content: `C${i}`, engine: 'x' })) });
    });
    const results = await searxngProvider({ baseUrl }).search('酒馆 tavern', { signal: new AbortController().signal, limit: 2 });
    expect(results).toEqual([
      { title: 'T1', url: 'https://example.test/1', snippet: 'C1' },
      { title: 'T2', url: 'https://example.test/2', snippet: 'C2' },
    ]);
    expect(seen[0]?.pathname).toBe('/search');
    expect(seen[0]?.searchParams.get('q')).toBe('酒馆 tavern');
    expect(seen[0]?.searchParams.get('format')).toBe('json');
  });

  it('HTTP errors, malformed bodies and timeouts become STORY_WEB_SEARCH_FAILED', async () => {
    let mode = 'status';
    const baseUrl = await fakeSearxng((_url, res) => {
      if (mode === 'status') return json(res, 503, { error: 'down' });
      if (mode === 'shape') return json(res, 200, { results: [{ title: 'no url' }] });
      if (mode === 'text') return json(res, 200, '<html>');
      // 'hang': never answer; the provider's timeout must fire.
    });
    const provider = searxngProvider({ baseUrl, timeoutMs: 200 });
    for (const m of ['status', 'shape', 'text', 'hang']) {
      mode = m;
      await expect(provider.search('q', { signal: new AbortController().signal, limit: 5 })).rejects.toMatchObject({ code: 'STORY_WEB_SEARCH_FAILED' });
    }
  });

  it('an aborted search rejects with the abort reason, not a failure', async () => {
    const baseUrl = await fakeSearxng(() => {});
    const controller = new AbortController();
    const reason = new Error('stop');
    const pending = searxngProvider({ baseUrl }).search('q', { signal: controller.signal, limit: 5 });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('in a turn: web results reach research; a web failure removes only the web results', async () => {
    let fail = false;
    const baseUrl = await fakeSearxng((_url, res) => (fail ? json(res, 500, {}) : json(res, 200, { results: [{ title: 'Web', url: 'https://example.test/w', content: 'WEB-RESULT' }] })));
    const { harness, model } = await storyHarness({ plugin: { webSearch: searxngProvider({ baseUrl }) } });
    const ok = await harness.runTurn({ sessionId: 's1', text: 'the tavern', turnId: 't1' });
    expect(requestText(model.callsFor('story/research')[0]!)).toContain('WEB-RESULT');
    expect(ok.events.find((e) => e.type === STORY_EVENTS.webRetrieval)?.data).toMatchObject({ ok: true, provider: 'searxng' });
    fail = true;
    const failed = await harness.runTurn({ sessionId: 's1', text: 'the tavern', turnId: 't2' });
    const research = requestText(model.callsFor('story/research')[1]!);
    expect(research).not.toContain('WEB-RESULT');
    expect(research).toContain('SOURCE-TAVERN');
    expect(failed.events.find((e) => e.type === STORY_EVENTS.webRetrieval)?.data).toMatchObject({ ok: false, error: { code: 'STORY_WEB_SEARCH_FAILED' } });
    expect(failed.events.find((e) => e.type === STORY_EVENTS.degraded)?.data).toMatchObject({ stage: 'web', fallback: 'local-only' });
    expect(failed.events.some((e) => e.type === STORY_EVENTS.draftPrepared)).toBe(true);
  });
});
