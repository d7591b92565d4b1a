import { describe, expect, it } from 'vitest';
import { orderedEnabledSections } from '../src/workspace/manifest.js';
import { parseManifestForTurn } from '../src/workspace/manifest-memo.js';
import { parseManifest, STORY_EVENTS, StoryError } from '../src/index.js';
import { storyHarness } from './helpers.js';

function fieldOf(text: string): string | undefined {
  try {
    parseManifest(text);
  } catch (error) {
    if (StoryError.isInstance(error) && error.code === 'STORY_MANIFEST_INVALID') return error.field;
    throw error;
  }
  return undefined;
}

describe('manifest.json schema', () => {
  it('applies defaults and orders enabled sections by order, then position', () => {
    const manifest = parseManifest(
      JSON.stringify({
        name: 'x',
        sections: [
          { id: 'b', title: 'B', kind: 'prose', order: 2 },
          { id: 'a', title: 'A', kind: 'history', order: 1 },
          { id: 'c', title: 'C', kind: 'prose', order: 1, enabled: false },
        ],
      }),
    );
    expect(manifest.pipeline).toEqual({ maxParallel: 4, webSearch: true, deadlineMs: 240_000, stageTimeoutMs: 90_000 });
    expect(orderedEnabledSections(manifest).map((s) => s.id)).toEqual(['a', 'b']);
    expect(manifest.sections[0]?.focus).toBeNull();
  });

  it('names the bad field for every kind of hand-editing mistake', () => {
    expect(fieldOf('{ "name": "x", ')).toBe('manifest');
    expect(fieldOf('[]')).toBe('manifest');
    expect(fieldOf('{}')).toBe('name');
    expect(fieldOf('{"name":"x","sections":[{"id":"s","title":"S","kind":"poem","order":0}]}')).toBe('sections[0].kind');
    expect(fieldOf('{"name":"x","pipeline":{"maxParallel":0}}')).toBe('pipeline.maxParallel');
    expect(fieldOf('{"name":"x","characters":[{"id":"a","name":"A"},{"id":"a","name":"B"}]}')).toBe('characters[1].id');
    expect(fieldOf('{"name":"x","characters":[{"id":"../x","name":"A"}]}')).toBe('characters[0].id');
  });

  it('a broken manifest makes the turn fall back to the plain flow with an event, settles the reply only, and keeps what the player wrote', async () => {
    const { harness, trees, workspaces, drafts, model } = await storyHarness();
    const raw = await workspaces.readRaw('tale');
    const broken = '{ "name": "Tale", "pipeline": { "maxParallel": "lots" } }';
    // Written through the store directly, as a player's text editor would.
    await trees.commit('tale', { baseRevision: raw.revision, writes: { 'manifest.json': broken } });
    const storedBroken = (await trees.read('tale')).files['manifest.json'];
    const result = await harness.runTurn({ sessionId: 's1', text: 'hi', turnId: 't1' });
    expect(result.reply).toBe('echo: hi');
    expect(drafts).toEqual([undefined]);
    const degraded = result.events.filter((e) => e.type === STORY_EVENTS.degraded).map((e) => e.data);
    expect(degraded[0]).toMatchObject({ stage: 'manifest', fallback: 'plain-character-flow', error: { code: 'STORY_MANIFEST_INVALID', field: 'pipeline.maxParallel' } });
    expect(model.calls.map((c) => c.meta.stage)).toEqual(['actor']);
    // The reply is still settled (reply only), and the manifest keeps every field the player
    // wrote: only the store's own revision stamp moves, as with any save of the workspace.
    const after = (await trees.read('tale')).files;
    expect(after['history.md']).toContain('<!-- troupe:settle story:t1 -->\necho: hi\n');
    const { revision: _before, ...kept } = JSON.parse(storedBroken ?? '');
    const { revision: _after, ...now } = JSON.parse(after['manifest.json'] ?? '');
    expect(now).toEqual(kept);
    await expect(workspaces.read('tale')).rejects.toMatchObject({ code: 'STORY_MANIFEST_INVALID', field: 'pipeline.maxParallel' });
  });

  it('unparseable JSON: plain flow, event, file untouched byte for byte', async () => {
    const { harness, trees, workspaces } = await storyHarness();
    const raw = await workspaces.readRaw('tale');
    await trees.commit('tale', { baseRevision: raw.revision, writes: { 'manifest.json': '{ not json' } });
    const result = await harness.runTurn({ sessionId: 's1', text: 'hi', turnId: 't1' });
    expect(result.events.find((e) => e.type === STORY_EVENTS.degraded)?.data).toMatchObject({ error: { code: 'STORY_MANIFEST_INVALID', field: 'manifest' } });
    expect((await trees.read('tale')).files['manifest.json']).toBe('{ not json');
  });

  it('the per-turn memo: a manifest that differs only in its revision is the full parse with that revision; a bad revision still fails', () => {
    const base = { name: 'memo', characters: [{ id: 'lia', name: 'Lia' }], sections: [{ id: 's', title: 'S', kind: 'prose', order: 0, focus: 'lia' }], extra: { kept: true } };
    const text = (revision: unknown) => `${JSON.stringify({ ...base, revision }, null, 2)}\n`;
    const first = parseManifestForTurn(text(3));
    expect(parseManifestForTurn(text(3))).toBe(first);
    for (const revision of [4, 0, 17]) {
      const next = parseManifestForTurn(text(revision));
      expect(next).toStrictEqual(parseManifest(text(revision)));
      expect(next.revision).toBe(revision);
    }
    const { revision: _none, ...withoutRevision } = parseManifest(JSON.stringify(base));
    expect(parseManifestForTurn(JSON.stringify(base))).toStrictEqual(withoutRevision);
    expect('revision' in parseManifestForTurn(JSON.stringify(base))).toBe(false);
    for (const bad of [-1, 1.5, 'seven']) {
      expect(() => parseManifestForTurn(text(bad))).toThrow(expect.objectContaining({ code: 'STORY_MANIFEST_INVALID', field: 'revision' }));
    }
    // Digits JSON would not write as that revision take the full parse (and its error).
    expect(() => parseManifestForTurn(text(3).replace('"revision": 3', '"revision": 007'))).toThrow(expect.objectContaining({ code: 'STORY_MANIFEST_INVALID', field: 'manifest' }));
    expect(parseManifestForTurn(text(3).replace('"revision": 3', '"revision": 3e1')).revision).toBe(30);
    // Any other change is validated in full.
    expect(() => parseManifestForTurn(`${JSON.stringify({ ...base, revision: 5, sections: [{ ...base.sections[0], focus: 'nobody' }] })}`)).toThrow(
      expect.objectContaining({ code: 'STORY_MANIFEST_INVALID', field: 'sections[0].focus' }),
    );
  });

  it('the per-turn memo finds the top-level revision, not a nested or overridden one with the same digits', () => {
    // Loose manifests keep unknown members: one may hold a `revision` of its own.
    const shapes = [
      (revision: number) => JSON.stringify({ name: 'nested', notes: { revision }, list: [{ revision }], revision }, null, 2),
      // Duplicate members: JSON.parse keeps the last one.
      (revision: number) => `{"name":"dup","revision":${revision},"notes":{"revision":${revision}},"revision":${revision}}`,
      (revision: number) => `{ "revision" : ${revision} , "name" : "by hand", "tail": {"revision":${revision}} }`,
    ];
    for (const shape of shapes) {
      parseManifestForTurn(shape(8));
      for (const revision of [9, 10, 8, 123]) {
        const next = parseManifestForTurn(shape(revision));
        expect(next).toStrictEqual(parseManifest(shape(revision)));
      }
      // Only the nested members changed: the top-level revision is still 8.
      const nestedOnly = shape(8).replace(/"revision": ?8(?=[,\s}])/, '"revision": 9');
      expect(parseManifestForTurn(nestedOnly)).toStrictEqual(parseManifest(nestedOnly));
    }
  });
});
