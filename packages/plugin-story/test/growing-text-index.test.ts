import { estimateTokenizer } from '@troupe/kernel';
import { inject, injectable } from '@troupe/kernel/di';
import { appendSettleBlock } from '@troupe/kernel/storage';
import { createTestHarness, MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { selectStoryWorkspace, SourceIndexCache, StoryTokens, storyPlugin } from '../src/index.js';
import type { StorySettings } from '../src/plugin-config.js';
import { windowDocument } from '../src/retrieval/document-window.js';
import { GrowingTextIndex } from '../src/retrieval/growing-text-index.js';
import { requestText, seedWorkspace, storyModel } from './helpers.js';

const CHUNK = 120;
const settle = (text: string, turn: number, body: string) => appendSettleBlock(text, `story:t${turn}:0`, body);

// What a fresh index of `text` holds: the reference every incremental index must equal.
function fresh(text: string): GrowingTextIndex {
  const index = new GrowingTextIndex(CHUNK);
  index.update(text);
  return index;
}

const shape = (index: GrowingTextIndex) => index.pieces.map(({ start, end, text, block }) => ({ start, end, text, block }));
const matches = (index: GrowingTextIndex, query: string) => index.search(query, Number.POSITIVE_INFINITY, 10_000).map((piece) => piece.ordinal).sort((a, b) => a - b);
const window = (text: string, index: GrowingTextIndex, revision?: number) =>
  windowDocument(text, index, { tokens: 300, recentTokens: 180, recentBlocks: 4, excerpts: 3, query: 'locket well 莉娅', count: (t) => estimateTokenizer.count(t), ...(revision === undefined ? {} : { revision }) });

function expectSameAsFresh(index: GrowingTextIndex, text: string): void {
  const reference = fresh(text);
  expect(shape(index)).toEqual(shape(reference));
  for (const query of ['locket', 'road 莉娅', 'well water']) expect(matches(index, query)).toEqual(matches(reference, query));
  expect(window(text, index)).toBe(window(text, reference));
}

describe('the growing-document index', () => {
  it('re-indexes from the last settle marker before a change: an append costs the last block and its own, an edit the text after its block', () => {
    const index = new GrowingTextIndex(600);
    let text = '';
    for (let turn = 0; turn < 200; turn++) text = settle(text, turn, `- event ${turn} on the road`);
    index.update(text);
    const full = index.charsIndexed;
    const appended = settle(text, 200, '- the LOCKET surfaced');
    index.update(appended);
    expect(index.charsIndexed - full).toBeLessThan(30);
    index.update(appended);
    expect(index.charsIndexed - full).toBeLessThan(30);
    expect(index.search('locket', Number.POSITIVE_INFINITY, 3).map((piece) => piece.text)).toEqual(['- the LOCKET surfaced']);
    const edited = appended.replace('event 190 on the road', 'event 190 by the WELL');
    const before = index.charsIndexed;
    index.update(edited);
    expect(index.charsIndexed - before).toBeLessThan(full / 10);
    expect(index.search('well', Number.POSITIVE_INFINITY, 3).map((piece) => piece.text)).toEqual(['- event 190 by the WELL']);
    expect(index.search('road', Number.POSITIVE_INFINITY, 500).some((piece) => piece.text.includes('event 190'))).toBe(false);
    // Only pieces before a given ordinal are searched.
    expect(index.search('locket', index.pieces.length - 1, 3)).toEqual([]);
  });

  // Seeded random changes of every kind the story and the player make: settlements, text typed at
  // the end without a marker (also mid-line), edits in the middle, a block removed (a swipe or a
  // deletion rewrites the file), truncation, long lines cut into pieces, and a whole new text.
  it('after appends, edits in the middle, removals and truncation holds exactly what a fresh build of the same text holds', () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const words = ['road', 'the LOCKET', 'well water', '莉娅在路上', 'rain', 'guild debt', '公会'];
    const sentence = () => Array.from({ length: 1 + random(8) }, () => words[random(words.length)]).join(' ');
    const index = new GrowingTextIndex(CHUNK);
    // Text typed after a block joins its open piece, as in a fresh build.
    let text = settle('', 0, '- Lia found the key');
    index.update(text);
    text += 'and kept it\n';
    index.update(text);
    expect(index.pieces.map((piece) => piece.text)).toEqual(['- Lia found the key\nand kept it']);
    expectSameAsFresh(index, text);
    let turn = 1;
    for (let round = 0; round < 160; round++) {
      const pick = random(12);
      if (pick < 5 || text.length < 200) text = settle(text, turn++, Array.from({ length: 1 + random(3) }, () => `- ${sentence()}`).join('\n'));
      else if (pick === 5) text += random(2) === 0 ? `${sentence()}\n` : ` ${sentence()}`;
      else if (pick === 6) text += `- ${'a long line of road '.repeat(5 + random(20))}\n`;
      else if (pick === 7) {
        const at = random(text.length);
        text = `${text.slice(0, at)}${sentence()}${text.slice(at + random(30))}`;
      } else if (pick === 8) {
        const marker = text.indexOf('<!-- troupe:settle', random(text.length));
        const next = marker < 0 ? -1 : text.indexOf('<!-- troupe:settle', marker + 1);
        if (marker >= 0) text = text.slice(0, marker) + (next < 0 ? '' : text.slice(next));
      } else if (pick === 9) text = text.slice(0, random(text.length));
      else if (pick === 10) text += '\n\n';
      else if (random(8) === 0) text = `# Prologue\n${sentence()}\n`;
      index.update(text);
      expectSameAsFresh(index, text);
    }
    expect(turn).toBeGreaterThan(30);
  });

  it('follows a settlement it is told of without reading the document, and compares again after any other change', () => {
    const index = new GrowingTextIndex(CHUNK);
    let text = 'A history the player wrote, without a final line break';
    let revision = 3;
    index.update(text, revision);
    for (let turn = 0; turn < 30; turn++) {
      const body = `- turn ${turn}: ${turn === 12 ? 'the LOCKET in the well' : 'the road goes on'}`;
      const next = settle(text, turn, body);
      // What the cache derives from the settlement alone: the separator from the kept tail.
      const suffix = `${index.endsWithLineBreak === false ? '\n' : ''}${appendSettleBlock('', `story:t${turn}:0`, body)}`;
      expect(next).toBe(text + suffix);
      expect(index.appended(revision + 1, suffix)).toBe(true);
      text = next;
      revision += 1;
      const compared = index.charsCompared;
      index.update(text, revision);
      expect(index.charsCompared).toBe(compared);
      expectSameAsFresh(index, text);
    }
    // Told of a revision it did not follow: ignored; the next update compares.
    expect(index.appended(revision + 5, 'x')).toBe(false);
    const edited = text.replace('the LOCKET in the well', 'the LOCKET in the river');
    const compared = index.charsCompared;
    index.update(edited, revision + 1);
    expect(index.charsCompared).toBeGreaterThan(compared);
    expectSameAsFresh(index, edited);
    expect(index.search('river', Number.POSITIVE_INFINITY, 3).map((piece) => piece.text)).toEqual(['- turn 12: the LOCKET in the river']);
    // The same revision with another length (a store that lost or gained text) is compared too.
    const truncated = edited.slice(0, edited.length - 40);
    index.update(truncated, revision + 1);
    expectSameAsFresh(index, truncated);
  });

  it('a settlement told to it after a line break extends the index by its block alone, exactly as a fresh build', () => {
    const index = new GrowingTextIndex(CHUNK);
    let text = 'Prologue by the well.\n\nA second paragraph the player wrote.\n';
    let revision = 1;
    index.update(text, revision);
    for (let turn = 0; turn < 12; turn++) {
      // Long bodies with blank lines: a block of several pieces, the last one often short.
      const body = turn % 3 === 0 ? `- turn ${turn}: ${'the road by the river goes on '.repeat(9)}\n\n- and the LOCKET ${turn}` : `- turn ${turn} at the well`;
      const suffix = appendSettleBlock('', `story:t${turn}:0`, body);
      const indexed = index.charsIndexed;
      expect(index.appended(revision + 1, suffix)).toBe(true);
      // Only the new block's characters were cut and indexed (its marker line excluded).
      expect(index.charsIndexed - indexed).toBeLessThanOrEqual(suffix.length - suffix.indexOf('\n') - 1);
      text += suffix;
      revision += 1;
      index.update(text, revision);
      expectSameAsFresh(index, text);
    }
  });

  it('a document that fits goes whole without its settle markers; a longer one as recent turns and a few retrieved excerpts', () => {
    let text = 'Prologue: the village by the well.\n';
    for (let turn = 0; turn < 3; turn++) text = settle(text, turn, `- turn ${turn} on the road`);
    const index = new GrowingTextIndex(CHUNK);
    expect(window(text, index)).toBe('Prologue: the village by the well.\n- turn 0 on the road\n- turn 1 on the road\n- turn 2 on the road\n');
    for (let turn = 3; turn < 40; turn++) text = settle(text, turn, turn === 9 ? '- Bram hid the LOCKET' : `- turn ${turn} on the road`);
    const view = window(text, index);
    expect(view).not.toContain('troupe:settle');
    // The last 4 turns (recentBlocks), then excerpts about the query from before them.
    expect(view.split('[most recent]\n')[1]).toBe('- turn 36 on the road\n- turn 37 on the road\n- turn 38 on the road\n- turn 39 on the road');
    expect(view).toContain('- Bram hid the LOCKET');
    expect(view).toContain('Prologue: the village by the well.');
    expect(view).not.toContain('turn 20 on');
  });
});

describe('the history index in the pipeline', () => {
  it('follows each turn\'s settlement without re-reading history.md, and a player\'s edit in the middle or truncation reaches the next prompt', async () => {
    const caches: SourceIndexCache[] = [];
    @injectable()
    class KeptIndexCache extends SourceIndexCache {
      constructor(@inject(StoryTokens.Settings) settings: StorySettings) {
        super(settings);
        caches.push(this);
      }
    }
    const trees = new MemoryTreeStore();
    const workspaces = await seedWorkspace(trees);
    let turn = 0;
    const model = storyModel({
      'story/continuity': [() => JSON.stringify({ publicEvents: [`Event of turn ${turn} on the road`], observations: [{ characterId: 'lia', facts: [`Lia saw turn ${turn}`] }], proposals: [] })],
    });
    const test = await createTestHarness({ trees, model, plugins: [storyPlugin()], provide: [{ token: StoryTokens.SourceIndexCache, useClass: KeptIndexCache }] });
    await selectStoryWorkspace(test.sessionLog, 's1', 'tale');
    const play = async (text: string) => {
      turn += 1;
      await test.harness.runTurn({ sessionId: 's1', text, turnId: `t${turn}` });
      return requestText(model.calls.filter((call) => call.meta.stage === 'story/research').at(-1)!);
    };
    for (let n = 0; n < 3; n++) await play('We walk on.');
    const history = caches[0]!.documentIndexFor('tale', 'history.md');
    const compared = history.charsCompared;
    for (let n = 0; n < 10; n++) await play('We walk on.');
    // Ten settled turns, and not one character of history.md compared again.
    expect(history.charsCompared).toBe(compared);
    const text = (await trees.read('tale')).files['history.md']!;
    expect(history.pieces.map((piece) => piece.text)).toEqual(fresh(text).pieces.map((piece) => piece.text));
    // The player rewrites turn 2's event by hand: the next prompt retrieves the edited text.
    const edited = text.replace('Event of turn 2 on the road', 'Event of turn 2: the LOCKET fell into the well');
    await workspaces.writeFiles('tale', (await trees.read('tale')).revision, { 'history.md': edited });
    const afterEdit = await play('Where did the locket go?');
    expect(afterEdit).toContain('Event of turn 2: the LOCKET fell into the well');
    expect(history.charsCompared).toBeGreaterThan(compared);
    // Truncated back to its first lines: older turns are gone from the index and the prompt.
    await workspaces.writeFiles('tale', (await trees.read('tale')).revision, { 'history.md': edited.slice(0, edited.indexOf('Event of turn 3')) });
    const afterCut = await play('Where did the locket go?');
    expect(afterCut).not.toContain('Event of turn 5 on the road');
    expect(afterCut).toContain('Event of turn 2: the LOCKET fell into the well');
    const now = (await trees.read('tale')).files['history.md']!;
    expect(shape(history)).toEqual(shape(fresh(now)));
    await test.harness.close();
  });

  it('a document checked out with Windows line endings (CRLF) goes to the stages without its settle markers too', () => {
    let text = 'Prologue: the village by the well.\n';
    for (let turn = 0; turn < 40; turn++) text = settle(text, turn, turn === 9 ? '- Bram hid the LOCKET' : `- turn ${turn} on the road`);
    const crlf = text.replace(/\n/g, '\r\n');
    const fits = window(crlf.slice(0, crlf.indexOf('- turn 3 ')), new GrowingTextIndex(CHUNK));
    expect(fits).toContain('- turn 2 on the road');
    expect(fits).not.toContain('troupe:settle');
    const view = window(crlf, new GrowingTextIndex(CHUNK));
    expect(view).toContain('- turn 39 on the road');
    expect(view).toContain('- Bram hid the LOCKET');
    expect(view).not.toContain('troupe:settle');
  });
});
