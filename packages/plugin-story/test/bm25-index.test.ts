import MiniSearch from 'minisearch';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Bm25Index } from '../src/retrieval/bm25-index.js';
import { MAX_SEGMENT_CHARS, processTerm, queryTerms, tokenize } from '../src/retrieval/tokenizer.js';

// A deterministic mixed Chinese/English corpus: word soup from a small vocabulary, so terms repeat
// with different frequencies and document lengths vary.
function corpus(count: number) {
  const words = ['tavern', 'guild', 'debt', 'Lia', 'Bram', 'river', 'café', 'lamp', '公会', '酒馆', '河边', '莉娅', '欠钱', '老板', 'night', 'rain'];
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  return Array.from({ length: count }, (_, n) => {
    const length = 5 + (next() % 40);
    const text = Array.from({ length }, () => words[next() % words.length]).join(next() % 3 === 0 ? '，' : ' ');
    return { id: `d${n}`, title: n % 5 === 0 ? 'Guild notes' : '设定', heading: words[next() % words.length]!, text };
  });
}

describe('the inverted index (BM25+)', () => {
  it('scores exactly like MiniSearch 7 (OR, field boosts) for long and short queries', () => {
    const docs = corpus(300);
    const mini = new MiniSearch({ fields: ['title', 'heading', 'text'], tokenize, processTerm, searchOptions: { boost: { title: 2, heading: 1.5 }, combineWith: 'OR', tokenize, processTerm } });
    mini.addAll(docs);
    const index = new Bm25Index([2, 1.5, 1], { tokenize, processTerm });
    for (const doc of docs) index.add(doc.id, [doc.title, doc.heading, doc.text]);
    const queries = ['guild debt', '莉娅欠公会的钱吗？', 'the tavern by the river at night, Lia and Bram 在酒馆 河边 rain rain rain', docs.slice(0, 12).map((d) => d.text).join('\n')];
    for (const query of queries) {
      const expected = mini.search(query).map((hit) => ({ key: String(hit.id), score: hit.score }));
      const actual = index.search(query, 1000);
      expect(actual.length).toBe(expected.length);
      const byKey = new Map(actual.map((hit) => [hit.key, hit.score]));
      for (const hit of expected) expect(byKey.get(hit.key)).toBeCloseTo(hit.score, 9);
    }
  });

  it('gives the same hits with remembered query terms, and segments a repeated query once', () => {
    const docs = corpus(200);
    const plain = new Bm25Index([2, 1.5, 1], { tokenize, processTerm });
    const remembering = new Bm25Index([2, 1.5, 1], { tokenize, processTerm, queryTerms });
    for (const doc of docs) {
      plain.add(doc.id, [doc.title, doc.heading, doc.text]);
      remembering.add(doc.id, [doc.title, doc.heading, doc.text]);
    }
    const queries = ['Café CAFE cafe lamp', '莉娅欠公会的钱吗？ Lia', 'rain rain rain 河边', docs[3]!.text];
    for (const query of [...queries, ...queries]) expect(remembering.search(query, 50)).toEqual(plain.search(query, 50));
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    // Not plain ASCII: such a text is cut without ICU (see tokenizer.test.ts), this one needs it.
    const fresh = 'a query no other test sends: the lamp by the river 河边';
    for (let n = 0; n < 5; n++) remembering.search(fresh, 10);
    expect(segment).toHaveBeenCalledTimes(1);
    vi.restoreAllMocks();
  });

  it('normalises ASCII terms like any other: only their case changes', () => {
    for (const term of ['Tavern', 'LIA', 'x1', "don't", 'a.b', '']) expect(processTerm(term)).toBe(term.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase());
    expect(processTerm('Café')).toBe('cafe');
    expect(processTerm('ＡＢＣ')).toBe('abc');
  });

  it('drops removed documents from scores and counts, also after compaction', () => {
    const index = new Bm25Index([1], { tokenize, processTerm });
    for (let n = 0; n < 200; n++) index.add(`k${n}`, [n === 150 ? 'silver locket' : `road number ${n}`]);
    for (let n = 0; n < 140; n++) index.remove(`k${n}`);
    expect(index.size).toBe(60);
    expect(index.search('locket', 5).map((hit) => hit.key)).toEqual(['k150']);
    expect(index.search('road', 100).every((hit) => Number(hit.key.slice(1)) >= 140)).toBe(true);
  });
});

describe('bounded Intl.Segmenter calls', () => {
  afterEach(() => vi.restoreAllMocks());

  it('segments long inputs in bounded pieces without splitting words', () => {
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    const text = `${'莉娅欠公会一笔钱，公会的人在找她。 The tavern sells ale by the river. '.repeat(3000)}end`;
    const terms = tokenize(text);
    expect(segment.mock.calls.length).toBeGreaterThan(text.length / MAX_SEGMENT_CHARS);
    for (const [input] of segment.mock.calls) expect(String(input).length).toBeLessThanOrEqual(MAX_SEGMENT_CHARS);
    expect(terms.filter((t) => t === 'tavern')).toHaveLength(3000);
    expect(terms.filter((t) => t === '公会')).toHaveLength(6000);
    expect(terms.at(-1)).toBe('end');
  });
});
