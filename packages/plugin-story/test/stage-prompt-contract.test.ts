import type { ChatMessage } from '@troupe/kernel';
import { knowledgeHeading, parsePromptBlocks, STAGE_BLOCKS, STAGE_LAYOUTS, type StageBlockId } from '@troupe/kernel/stage-prompt';
import { describe, expect, it } from 'vitest';
import { STAGE_BLOCKS as EXPORTED_BLOCKS, STAGE_LAYOUTS as EXPORTED_LAYOUTS } from '../src/index.js';
import { characterMessages } from '../src/stages/character.js';
import { continuityMessages } from '../src/stages/continuity.js';
import { directorMessages } from '../src/stages/director.js';
import { researchMessages } from '../src/stages/research.js';
import { sectionMessages } from '../src/stages/section.js';

// The offline model (and any model that simulates the stages) reads these messages through the
// declared contract. A stage that renames, drops, adds or reorders a block breaks it: this test
// fails first, and the contract in @troupe/kernel/stage-prompt must change with the stage.

const lia = { id: 'lia', name: 'Lia' };
const section = { id: 'scene', title: 'Scene', kind: 'prose' as const, focus: null };
// Bodies that contain "## " lines of their own must not split the blocks.
const tricky = 'Line one\n## Not a block heading\nLine three';

const built: Record<keyof typeof STAGE_LAYOUTS, ChatMessage[]> = {
  'story/research': researchMessages({ publicHistory: tricky, recentConversation: [{ role: 'user', content: 'hi' }], snippets: [{ origin: 'local', ref: 'a#0', title: 'A', text: 'x' }], playerInput: 'Open the door.' }),
  'story/character': characterMessages({ character: lia, persona: '# Lia\nKeeper of the lamp.', knowledge: tricky, playerInput: 'Open the door.' }),
  'story/director': directorMessages({
    outline: 'o',
    foreshadowing: 'f',
    publicHistory: tricky,
    research: { facts: ['a fact'], continuity: 'c' },
    proposals: [{ characterId: 'lia', name: 'Lia', proposal: { intent: 'i', action: 'a', dialogue: 'd' } }],
    sections: [section],
    playerInput: 'Open the door.',
  }),
  'story/section': sectionMessages({ section, reference: tricky, plan: { beats: ['b'], sectionNotes: [{ sectionId: 'scene', note: 'n' }] }, playerInput: 'Open the door.' }),
  'story/continuity': continuityMessages({ visibleReply: tricky, outline: 'o', foreshadowing: 'f', participants: [lia] }),
};

function headingOf(id: StageBlockId): string {
  return id === 'knowledge' ? knowledgeHeading(lia.name) : STAGE_BLOCKS[id];
}

describe('the declared stage-prompt contract', () => {
  for (const [stage, layout] of Object.entries(STAGE_LAYOUTS)) {
    it(`${stage}: the user message has exactly the declared blocks, in order`, () => {
      const messages = built[stage as keyof typeof STAGE_LAYOUTS];
      expect(messages.map((message) => message.role)).toEqual(['system', 'user']);
      const blocks = parsePromptBlocks(messages[1]?.content ?? '');
      expect(blocks.map((block) => block.heading)).toEqual(layout.map(headingOf));
      // Every block carries content, and bodies with their own "## " lines stay whole.
      for (const block of blocks) expect(block.body).not.toBe('');
      const trickyBlock = blocks.find((block) => block.body.includes('Not a block heading'));
      if (trickyBlock) expect(trickyBlock.body).toBe(tricky);
      expect(blocks.at(-1)?.body).toBe(stage === 'story/continuity' ? '- lia: Lia' : 'Open the door.');
    });
  }

  it('is what the package exports', () => {
    expect(EXPORTED_BLOCKS).toBe(STAGE_BLOCKS);
    expect(EXPORTED_LAYOUTS).toBe(STAGE_LAYOUTS);
  });
});
