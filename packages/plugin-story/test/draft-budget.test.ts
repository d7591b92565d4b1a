import { estimateTokenizer, type SessionEvent } from '@troupe/kernel';
import { describe, expect, it } from 'vitest';
import { STORY_EVENTS } from '../src/index.js';
import { sectionTitle, storyHarness, storyModel } from './helpers.js';

const degradations = (events: readonly SessionEvent[]) =>
  events.filter((e) => e.type === STORY_EVENTS.degraded).map((e) => e.data as { stage: string; fallback: string; item?: string; error: { code: string; message: string } });
const results = (events: readonly SessionEvent[], stage: string) =>
  events.filter((e) => e.type === STORY_EVENTS.stageResult && (e.data as { stage: string }).stage === stage).map((e) => e.data as { ok: boolean; error?: { code: string } });
const LONG = '长文本很长。'.repeat(2000);
// The kernel's default turn budget: 8192 − 1024 tokens of prompt; the draft may take half.
const DRAFT_TOKENS = (8192 - 1024) / 2;

describe('the draft the actor receives is bounded by the turn token budget', () => {
  it('a 12 000-character section is clipped (degraded, visible), the editor still runs, the draft fits', async () => {
    const model = storyModel({ 'story/section': [(req) => (sectionTitle(req) === 'Scene' ? LONG : `Draft of ${sectionTitle(req)}.`)] });
    const { harness, drafts } = await storyHarness({ model });
    const result = await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    expect(degradations(result.events)).toEqual([
      { stage: 'story/section', item: 'scene', fallback: 'clipped', error: { code: 'STORY_STAGE_OUTPUT_TOO_LARGE', message: expect.stringContaining('Scene') } },
    ]);
    expect(model.callsFor('story/editor')).toHaveLength(1);
    expect(results(result.events, 'story/editor')).toMatchObject([{ ok: true }]);
    const draft = drafts[0]!.text;
    expect(draft).toContain("## Lia's view\n\nDraft of Lia's view.");
    expect(draft).toContain('长文本很长。');
    expect(estimateTokenizer.count(draft)).toBeLessThanOrEqual(DRAFT_TOKENS);
  });

  it('a smaller chat budget gives a smaller draft', async () => {
    const model = storyModel({ 'story/section': [() => LONG] });
    const { harness, drafts } = await storyHarness({ model });
    await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1', scenario: { tokenBudget: { contextTokens: 2048, responseTokens: 512 } } });
    expect(estimateTokenizer.count(drafts[0]!.text)).toBeLessThanOrEqual((2048 - 512) / 2);
    expect(drafts[0]!.text).toContain('## Scene');
  });

  it('an editor answer over the draft budget is a failed editor: the (fitting) section drafts go to the actor', async () => {
    const model = storyModel({ 'story/editor': [() => `## Scene\n\n${LONG}\n\n## Lia's view\n\nX`] });
    const { harness, drafts } = await storyHarness({ model });
    const result = await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    expect(degradations(result.events)).toMatchObject([{ stage: 'story/editor', fallback: 'section-drafts', error: { code: 'STORY_STAGE_OUTPUT_TOO_LARGE' } }]);
    expect(results(result.events, 'story/editor')).toMatchObject([{ ok: false, error: { code: 'STORY_STAGE_OUTPUT_TOO_LARGE' } }]);
    expect(drafts[0]?.text).toBe("## Scene\n\nDraft of Scene.\n\n## Lia's view\n\nDraft of Lia's view.");
  });

  it('a replayed draft that no longer fits the turn budget → plain character flow, with an event', async () => {
    let failed = false;
    const model = storyModel({
      'story/section': [() => LONG],
      actor: [
        (req) => {
          if (!failed) {
            failed = true;
            throw new Error('actor down');
          }
          return `reply to ${req.messages.at(-1)?.content}`;
        },
      ],
    });
    const { harness, drafts } = await storyHarness({ model });
    await expect(harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' })).rejects.toMatchObject({ code: 'KERNEL_MODEL_FAILED' });
    const retry = await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1', scenario: { tokenBudget: { contextTokens: 512, responseTokens: 256 } } });
    expect(drafts[1]).toBeUndefined();
    expect(degradations(retry.events)).toMatchObject([{ stage: 'draft', fallback: 'plain-character-flow', error: { code: 'STORY_DRAFT_TOO_LARGE' } }]);
    expect(retry.reply).toBe('reply to go');
  });
});
