import type { SessionEvent } from '@troupe/kernel';
import { describe, expect, it } from 'vitest';
import { FALLBACK_PLAN_LIMITS } from '../src/stages/director.js';
import { STORY_EVENTS } from '../src/index.js';
import { characterName, requestText, sectionTitle, storyHarness, storyModel } from './helpers.js';

const boom = () => {
  throw new Error('provider down');
};
const degradations = (events: readonly SessionEvent[]) => events.filter((e) => e.type === STORY_EVENTS.degraded).map((e) => e.data as { stage: string; fallback: string; item?: string; error: { code: string } });

describe('degradation, exactly per the seed', () => {
  it('research fails → the director works from the local snippets', async () => {
    const { harness, model, drafts } = await storyHarness({ model: storyModel({ 'story/research': [boom] }) });
    const result = await harness.runTurn({ sessionId: 's1', text: 'the tavern', turnId: 't1' });
    expect(degradations(result.events)).toEqual([{ stage: 'story/research', fallback: 'snippets', error: { code: 'STORY_STAGE_MODEL_FAILED', message: expect.stringContaining('provider down') } }]);
    expect(requestText(model.callsFor('story/director')[0]!)).toContain('SOURCE-TAVERN');
    expect(drafts[0]?.text).toContain('Draft of Scene.');
    const failed = result.events.find((e) => e.type === STORY_EVENTS.stageResult && (e.data as { stage: string }).stage === 'story/research');
    expect(failed?.data).toMatchObject({ ok: false, error: { code: 'STORY_STAGE_MODEL_FAILED' } });
  });

  it('one character fails → that character is skipped, the others go on', async () => {
    const model = storyModel({
      'story/character': [(req) => (characterName(req) === 'Bram' ? boom() : JSON.stringify({ intent: 'i', action: 'Lia draws a map', dialogue: '' }))],
    });
    const { harness } = await storyHarness({ model });
    const result = await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    expect(degradations(result.events)).toMatchObject([{ stage: 'story/character', item: 'bram', fallback: 'skipped' }]);
    const director = requestText(model.callsFor('story/director')[0]!);
    expect(director).toContain('Lia draws a map');
    expect(director).not.toContain('Bram (bram): intent');
  });

  it('a character answering invalid JSON counts as failed with STORY_STAGE_OUTPUT_INVALID', async () => {
    const model = storyModel({ 'story/character': [(req) => (characterName(req) === 'Lia' ? '{"intent": 3}' : JSON.stringify({ intent: 'i', action: 'a', dialogue: '' }))] });
    const { harness } = await storyHarness({ model });
    const result = await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    expect(degradations(result.events)).toMatchObject([{ stage: 'story/character', item: 'lia', error: { code: 'STORY_STAGE_OUTPUT_INVALID' } }]);
  });

  it('director fails → a bounded fallback plan built from the inputs', async () => {
    const model = storyModel({ 'story/director': ['not json'] });
    const { harness } = await storyHarness({ model });
    const long = `go ${'x'.repeat(1000)}`;
    const result = await harness.runTurn({ sessionId: 's1', text: long, turnId: 't1' });
    expect(degradations(result.events)).toMatchObject([{ stage: 'story/director', fallback: 'fallback-plan' }]);
    const section = requestText(model.callsFor('story/section')[0]!);
    expect(section).toContain('Lia: Lia steps forward');
    expect(section).toContain('Keep consistent: The tavern is open');
    const beats = section.split('\n').filter((l) => l.startsWith('- '));
    expect(beats.length).toBeLessThanOrEqual(FALLBACK_PLAN_LIMITS.maxBeats);
    expect(Math.max(...beats.map((b) => b.length))).toBeLessThanOrEqual(FALLBACK_PLAN_LIMITS.maxBeatChars + 2);
  });

  it('one section fails → it is skipped and the rest keep their headings', async () => {
    const model = storyModel({ 'story/section': [(req) => (sectionTitle(req) === 'Scene' ? boom() : `Draft of ${sectionTitle(req)}.`)] });
    const { harness, drafts } = await storyHarness({ model });
    const result = await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    expect(degradations(result.events)).toMatchObject([{ stage: 'story/section', item: 'scene', fallback: 'skipped' }]);
    expect(drafts[0]?.text).toBe("## Lia's view\n\nDraft of Lia's view.");
  });

  it('editor fails (or breaks the headings) → the section drafts go to the actor', async () => {
    for (const editor of [boom, () => 'merged everything into one blob']) {
      const { harness, drafts } = await storyHarness({ model: storyModel({ 'story/editor': [editor] }) });
      const result = await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
      expect(degradations(result.events)).toMatchObject([{ stage: 'story/editor', fallback: 'section-drafts' }]);
      expect(drafts[0]?.text).toBe("## Scene\n\nDraft of Scene.\n\n## Lia's view\n\nDraft of Lia's view.");
    }
  });

  it('a rejected editor answer (changed headings) is recorded as a failed editor result, with the reason', async () => {
    const { harness } = await storyHarness({ model: storyModel({ 'story/editor': [() => "## Lia's view\n\nX\n\n## Scene\n\nY"] }) });
    const result = await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    const editor = result.events.filter((e) => e.type === STORY_EVENTS.stageResult && (e.data as { stage: string }).stage === 'story/editor').map((e) => e.data);
    expect(editor).toMatchObject([{ ok: false, text: "## Lia's view\n\nX\n\n## Scene\n\nY", error: { code: 'STORY_EDITOR_STRUCTURE', message: expect.stringContaining('expected [Scene, Lia') } }]);
    expect(degradations(result.events)).toMatchObject([{ stage: 'story/editor', fallback: 'section-drafts', error: { code: 'STORY_EDITOR_STRUCTURE' } }]);
  });

  it('the whole preparation fails → plain character flow, with an event and no draft', async () => {
    const { harness, drafts, model } = await storyHarness({ model: storyModel({ 'story/section': [boom] }) });
    const result = await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    expect(drafts).toEqual([undefined]);
    expect(result.reply).toBe('echo: go');
    expect(degradations(result.events).at(-1)).toMatchObject({ stage: 'preparation', fallback: 'plain-character-flow', error: { code: 'STORY_NO_SECTIONS' } });
    expect(result.events.some((e) => e.type === STORY_EVENTS.draftPrepared)).toBe(false);
    expect(model.callsFor('actor')).toHaveLength(1);
  });

  it('an unknown pipeline model → plain character flow with an event', async () => {
    const { harness, workspaces, drafts } = await storyHarness();
    const ws = await workspaces.read('tale');
    await workspaces.updateManifest('tale', ws.revision, { ...ws.manifest, pipeline: { ...ws.manifest.pipeline, provider: 'nowhere' } });
    const result = await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    expect(drafts).toEqual([undefined]);
    expect(degradations(result.events)[0]).toMatchObject({ stage: 'preparation', error: { code: 'KERNEL_MODEL_NOT_FOUND' } });
  });

  it('cancellation is never a degradation: the turn rejects with the abort reason and nothing is written', async () => {
    const controller = new AbortController();
    const reason = new Error('player cancelled');
    const model = storyModel({
      'story/director': [
        (req) => {
          controller.abort(reason);
          return new Promise((_, reject) => req.signal.addEventListener('abort', () => reject(req.signal.reason)));
        },
      ],
    });
    const { harness, sessionLog } = await storyHarness({ model });
    const before = (await sessionLog.read('s1')).length;
    await expect(harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' }, { signal: controller.signal })).rejects.toBe(reason);
    const after = await sessionLog.read('s1');
    expect(after).toHaveLength(before);
    expect(model.callsFor('story/section')).toHaveLength(0);
    expect(model.callsFor('actor')).toHaveLength(0);
  });
});
