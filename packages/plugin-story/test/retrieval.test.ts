import { describe, expect, it } from 'vitest';
import { capSnippets } from '../src/retrieval/snippet.js';
import { chunkMarkdown } from '../src/retrieval/chunk-markdown.js';
import { hasFullIcu, processTerm, tokenize } from '../src/retrieval/tokenizer.js';
import { SourceIndex } from '../src/retrieval/source-index.js';
import { requestText, storyHarness } from './helpers.js';

describe('local retrieval', () => {
  it('tokenises Chinese by words and English by words, with accent-insensitive terms', () => {
    expect(hasFullIcu()).toBe(true);
    const terms = tokenize('莉娅欠公会一笔钱 at the Café.');
    expect(terms).toContain('公会');
    expect(terms).toContain('Café');
    expect(terms).not.toContain(' ');
    expect(processTerm('Café')).toBe('cafe');
  });

  it('finds Chinese and English passages and ranks the relevant heading first', () => {
    const index = new SourceIndex();
    index.update([
      { id: 'zh', title: '设定', text: '# 酒馆\n酒馆在河边，老板很和善。\n\n# 公会\n莉娅欠公会一笔钱，公会的人在找她。' },
      { id: 'en', title: 'Lore', text: '# Market\nThe market sells fish.\n\n# Café\nThe café serves tea to travellers.' },
    ]);
    expect(index.query('公会在找谁？')[0]).toMatchObject({ origin: 'local', ref: 'zh#1', title: '设定 > 公会' });
    expect(index.query('cafe tea')[0]?.ref).toBe('en#1');
    expect(index.query('')).toEqual([]);
  });

  it('chunks by Markdown headings, ignoring # lines inside fenced code, and reads setext headings', () => {
    const chunks = chunkMarkdown('Intro\n=====\nhello\n\n```bash\n# not a heading\n```\n\n## Real heading\nbody', 1000);
    expect(chunks.map((c) => c.heading)).toEqual(['Intro', 'Intro > Real heading']);
    expect(chunks[0]?.text).toContain('# not a heading');
  });

  it('splits long sections into bounded chunks', () => {
    const paragraphs = Array.from({ length: 20 }, (_, i) => `Paragraph ${i} ${'word '.repeat(30)}`).join('\n\n');
    const chunks = chunkMarkdown(`# Big\n${paragraphs}\n${'x'.repeat(2500)}`, 400);
    expect(chunks.length).toBeGreaterThan(5);
    expect(Math.max(...chunks.map((c) => c.text.length))).toBeLessThanOrEqual(400);
  });

  it('caps snippet count, snippet size and total size', () => {
    const snippets = Array.from({ length: 10 }, (_, i) => ({ origin: 'local' as const, ref: `s#${i}`, title: 't', text: 'y'.repeat(500) }));
    expect(capSnippets(snippets, { maxSnippets: 3, maxSnippetChars: 1000, maxTotalChars: 10_000 })).toHaveLength(3);
    const clipped = capSnippets(snippets, { maxSnippets: 10, maxSnippetChars: 100, maxTotalChars: 250 });
    expect(clipped).toHaveLength(2);
    expect(clipped.every((s) => s.text.length === 100)).toBe(true);
  });

  it('re-indexes a source only when its hash changes, and drops removed sources', () => {
    const index = new SourceIndex();
    index.update([
      { id: 'a', title: 'A', text: '# x\nalpha apples' },
      { id: 'b', title: 'B', text: '# y\nbeta bananas' },
    ]);
    expect(index.stats.sourcesIndexed).toBe(2);
    index.update([
      { id: 'a', title: 'A', text: '# x\nalpha apples' },
      { id: 'b', title: 'B', text: '# y\nbeta bananas' },
    ]);
    expect(index.stats.sourcesIndexed).toBe(2);
    index.update([
      { id: 'a', title: 'A', text: '# x\nalpha cherries' },
      { id: 'b', title: 'B', text: '# y\nbeta bananas' },
    ]);
    expect(index.stats.sourcesIndexed).toBe(3);
    expect(index.query('apples')).toEqual([]);
    expect(index.query('cherries')[0]?.ref).toBe('a#0');
    index.update([{ id: 'b', title: 'B', text: '# y\nbeta bananas' }]);
    expect(index.query('cherries')).toEqual([]);
    expect(index.stats.chunks).toBe(1);
  });

  it('the research request carries only enabled sources, within the plugin caps', async () => {
    const { harness, workspaces, model } = await storyHarness({ plugin: { retrieval: { maxSnippets: 1, maxSnippetChars: 40 } } });
    let ws = await workspaces.read('tale');
    ws = await workspaces.addSource('tale', ws.revision, { id: 'off', title: 'Off', enabled: false, text: '# Tavern\nDISABLED-SOURCE tavern rumours' });
    await harness.runTurn({ sessionId: 's1', text: 'tell me about the tavern', turnId: 't1' });
    const text = requestText(model.callsFor('story/research')[0]!);
    expect(text).toContain('SOURCE-TAVERN');
    expect(text).not.toContain('DISABLED-SOURCE');
    expect(text).not.toContain('guild lends');
  });
});
