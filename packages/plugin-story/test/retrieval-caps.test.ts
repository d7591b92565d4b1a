import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { searxngProvider } from '../src/index.js';
import { requestText, storyHarness } from './helpers.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback SearXNG answering `count` results of about 100 characters each. */
async function fakeSearxng(count: number): Promise<string> {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const results = Array.from({ length: count }, (_, i) => ({ title: `Web ${i}`, url: `https://example.test/${i}`, content: `WEB-${i} tavern ${'w'.repeat(90)}` }));
    res.end(JSON.stringify({ results }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The reference snippets research received: their origins and texts. */
function researchSnippets(text: string): { origin: string; text: string }[] {
  const block = text.slice(text.indexOf('## Reference snippets\n') + '## Reference snippets\n'.length, text.indexOf('\n\n## Player input'));
  return block
    .split(/\n(?=\[\d+\] \()/)
    .filter((line) => /^\[\d+\] \(/.test(line))
    .map((line) => {
      const match = /^\[\d+\] \((local|web): [^)]*\) ([\s\S]*)$/.exec(line);
      return { origin: match?.[1] ?? '?', text: match?.[2] ?? '' };
    });
}

const ROOMS = Array.from({ length: 5 }, (_, i) => `# Room ${i}\nThe tavern room ${i} has a fireplace and long tables for tired travellers.`).join('\n\n');

describe('retrieval caps over local and web snippets together', () => {
  it('caps the snippet count once over the merged list (local first), not per origin', async () => {
    const baseUrl = await fakeSearxng(5);
    const { harness, model, workspaces } = await storyHarness({ plugin: { webSearch: searxngProvider({ baseUrl }), retrieval: { maxSnippets: 3 } } });
    const ws = await workspaces.read('tale');
    await workspaces.addSource('tale', ws.revision, { id: 'rooms', title: 'Rooms', text: ROOMS });
    await harness.runTurn({ sessionId: 's1', text: 'the tavern room', turnId: 't1' });
    const snippets = researchSnippets(requestText(model.callsFor('story/research')[0]!));
    expect(snippets).toHaveLength(3);
    expect(snippets.every((s) => s.origin === 'local')).toBe(true);
  });

  it('caps the total size once over the merged list', async () => {
    const baseUrl = await fakeSearxng(5);
    const limits = { maxSnippets: 10, maxSnippetChars: 120, maxTotalChars: 300 };
    const { harness, model, workspaces } = await storyHarness({ plugin: { webSearch: searxngProvider({ baseUrl }), retrieval: limits } });
    const ws = await workspaces.read('tale');
    await workspaces.addSource('tale', ws.revision, { id: 'rooms', title: 'Rooms', text: ROOMS });
    await harness.runTurn({ sessionId: 's1', text: 'the tavern room', turnId: 't1' });
    const snippets = researchSnippets(requestText(model.callsFor('story/research')[0]!));
    expect(snippets.length).toBeGreaterThan(1);
    expect(snippets.reduce((sum, s) => sum + s.text.length, 0)).toBeLessThanOrEqual(limits.maxTotalChars);
  });

  it('web results fill the budget local retrieval left', async () => {
    const baseUrl = await fakeSearxng(5);
    const { harness, model } = await storyHarness({ plugin: { webSearch: searxngProvider({ baseUrl }), retrieval: { maxSnippets: 3 } } });
    await harness.runTurn({ sessionId: 's1', text: 'the tavern', turnId: 't1' });
    // The seeded workspace has fewer matching local chunks than the cap: they come first, web follows.
    const origins = researchSnippets(requestText(model.callsFor('story/research')[0]!)).map((s) => s.origin);
    expect(origins).toHaveLength(3);
    expect(origins[0]).toBe('local');
    expect(origins).toContain('web');
    expect(origins.indexOf('web')).toBeGreaterThan(origins.lastIndexOf('local'));
  });
});
