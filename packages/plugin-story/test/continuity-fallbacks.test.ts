import type { SessionEvent } from '@troupe/kernel';
import { describe, expect, it } from 'vitest';
import { STORY_EVENTS } from '../src/index.js';
import { storyHarness, storyModel } from './helpers.js';

const degradations = (events: readonly SessionEvent[]) => events.filter((e) => e.type === STORY_EVENTS.degraded).map((e) => e.data as { stage: string; fallback: string; error: { code: string } });
const BLOCK = (turnId: string, reply: string) => `<!-- troupe:settle story:${turnId} -->\n${reply}\n`;

describe('every failure of the continuity stage falls back to writing the visible reply', () => {
  it('an unknown pipeline model (KERNEL_MODEL_NOT_FOUND): the reply goes to history.md, the turn has no postReview error', async () => {
    const { harness, trees, workspaces } = await storyHarness({ model: storyModel({ actor: ['THE VISIBLE REPLY'] }) });
    const ws = await workspaces.read('tale');
    await workspaces.updatePipeline('tale', ws.revision, { provider: 'nowhere', model: 'x' });
    const before = (await trees.read('tale')).files['history.md'];
    const result = await harness.runTurn({ sessionId: 's1', text: 'x', turnId: 't1' });
    expect(result.postReviewErrors).toEqual([]);
    expect((await trees.read('tale')).files['history.md']).toBe(`${before}${BLOCK('t1', 'THE VISIBLE REPLY')}`);
    expect(degradations(result.events).at(-1)).toMatchObject({ stage: 'story/continuity', fallback: 'reply-only', error: { code: 'KERNEL_MODEL_NOT_FOUND' } });
    expect(result.events.find((e) => e.type === STORY_EVENTS.settled)?.data).toMatchObject({ mode: 'reply-only', applied: true });
  });

  it('a hand-broken manifest.json: the reply goes to history.md and manifest.json keeps its bytes', async () => {
    const { harness, trees, workspaces } = await storyHarness({ model: storyModel({ actor: ['THE VISIBLE REPLY'] }) });
    // A hand edit straight to the file (the editing API refuses a broken manifest).
    await trees.commit('tale', { baseRevision: (await workspaces.readRaw('tale')).revision, writes: { 'manifest.json': '{"name": "Tale", oops' } });
    const before = (await trees.read('tale')).files;
    const result = await harness.runTurn({ sessionId: 's1', text: 'x', turnId: 't1' });
    expect(result.postReviewErrors).toEqual([]);
    const files = (await trees.read('tale')).files;
    expect(files['history.md']).toBe(`${before['history.md']}${BLOCK('t1', 'THE VISIBLE REPLY')}`);
    expect(files['manifest.json']).toBe(before['manifest.json']);
    expect(files['characters/lia/knowledge.md']).toBe(before['characters/lia/knowledge.md']);
    expect(degradations(result.events).at(-1)).toMatchObject({ stage: 'story/continuity', fallback: 'reply-only', error: { code: 'STORY_MANIFEST_INVALID' } });
  });
});
