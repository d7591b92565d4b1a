import { describe, expect, it } from 'vitest';
import { eventNote } from '../web/src/chat/event-note.js';

describe('the chat view\'s notes for live turn events', () => {
  it('a story degradation says which stage fell back to what, and why', () => {
    const note = eventNote('agent-rp/story-degraded', {
      stage: 'story/editor',
      fallback: 'section-drafts',
      error: { code: 'STORY_EDITOR_STRUCTURE', message: 'The editor changed the section headings: expected [场景, Marco], got [Marco, 场景]' },
    });
    expect(note).toBe(
      '故事流水线降级 · Story pipeline degraded — 编辑 Editor → 使用分区草稿 section drafts: STORY_EDITOR_STRUCTURE: The editor changed the section headings: expected [场景, Marco], got [Marco, 场景]',
    );
    expect(eventNote('agent-rp/story-degraded', { stage: 'story/section', item: 'scene', fallback: 'clipped', error: { code: 'STORY_STAGE_OUTPUT_TOO_LARGE', message: 'too long' } })).toBe(
      '故事流水线降级 · Story pipeline degraded — 分区 Section · scene → 截短 clipped: STORY_STAGE_OUTPUT_TOO_LARGE: too long',
    );
    expect(eventNote('agent-rp/story-degraded', { stage: 'workspace', fallback: 'plain-character-flow', error: { message: 'gone' } })).toBe(
      '故事流水线降级 · Story pipeline degraded — workspace → 普通角色流程 plain character flow: gone',
    );
  });

  it('other events keep their fixed note; a degradation without details the generic one; unknown events none', () => {
    expect(eventNote('kernel/turn-committed', {})).toBe('回合已保存 · Turn saved');
    expect(eventNote('agent-rp/story-degraded', null)).toBe('故事流水线降级 · Story pipeline degraded');
    expect(eventNote('something/else', {})).toBeUndefined();
  });
});
