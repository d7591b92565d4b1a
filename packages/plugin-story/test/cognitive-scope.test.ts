import { describe, expect, expectTypeOf, it } from 'vitest';
import type { CharacterWorkerInput } from '../src/stages/character.js';
import type { ContinuityInput } from '../src/stages/continuity.js';
import type { DirectorInput } from '../src/stages/director.js';
import type { EditorInput } from '../src/stages/editor.js';
import type { ResearchInput } from '../src/stages/research.js';
import type { SectionWriterInput } from '../src/stages/section.js';
import { requestText, storyHarness, storyModel } from './helpers.js';

const PRIVATE = ['LIA-SECRET', 'BRAM-SECRET', 'LIA-PERSONA', 'BRAM-PERSONA'];

// Two turns, so the second has recent conversation, history and settled knowledge to (not) leak.
async function twoTurns() {
  const model = storyModel({ actor: ['VISIBLE-REPLY-1 Lia nods.', 'VISIBLE-REPLY-2 Bram grins.'] });
  const test = await storyHarness({ model });
  await test.harness.runTurn({ sessionId: 's1', text: 'PLAYER-INPUT-1 I enter the tavern', turnId: 't1' });
  const before = model.calls.length;
  await test.harness.runTurn({ sessionId: 's1', text: 'PLAYER-INPUT-2 what about the tavern ale?', turnId: 't2' });
  const second = model.calls.slice(before);
  return { ...test, model, second, stage: (name: string) => second.filter((c) => c.meta.stage === name) };
}

describe('cognitive scope (the seed table), enforced by stage input types', () => {
  it('stage input types have exactly the allowed fields', () => {
    expectTypeOf<keyof CharacterWorkerInput>().toEqualTypeOf<'character' | 'persona' | 'knowledge' | 'playerInput'>();
    expectTypeOf<keyof ResearchInput>().toEqualTypeOf<'publicHistory' | 'recentConversation' | 'snippets' | 'playerInput'>();
    expectTypeOf<keyof DirectorInput>().toEqualTypeOf<'outline' | 'foreshadowing' | 'publicHistory' | 'research' | 'proposals' | 'sections' | 'playerInput'>();
    expectTypeOf<keyof SectionWriterInput>().toEqualTypeOf<'section' | 'reference' | 'plan' | 'playerInput'>();
    expectTypeOf<keyof EditorInput>().toEqualTypeOf<'drafts'>();
    expectTypeOf<keyof ContinuityInput>().toEqualTypeOf<'visibleReply' | 'outline' | 'foreshadowing' | 'participants'>();
  });

  it('a character worker sees only its own persona, its own knowledge and the player input', async () => {
    const { stage } = await twoTurns();
    const calls = stage('story/character');
    const lia = calls.filter((c) => requestText(c).includes('You play Lia'));
    const bram = calls.filter((c) => requestText(c).includes('You play Bram'));
    expect(lia).toHaveLength(1);
    expect(bram).toHaveLength(1);
    const liaText = requestText(lia[0]!);
    expect(liaText).toContain('LIA-PERSONA');
    expect(liaText).toContain('LIA-SECRET');
    expect(liaText).toContain('PLAYER-INPUT-2');
    for (const hidden of ['BRAM-SECRET', 'BRAM-PERSONA', 'Bram', 'HISTORY', 'OUTLINE', 'FORESHADOW', 'SOURCE-TAVERN', 'VISIBLE-REPLY-1', 'PLAYER-INPUT-1', 'Lia greeted']) {
      expect(liaText).not.toContain(hidden);
    }
    const bramText = requestText(bram[0]!);
    expect(bramText).toContain('BRAM-SECRET');
    for (const hidden of ['LIA-SECRET', 'LIA-PERSONA', 'A traveller arrived']) expect(bramText).not.toContain(hidden);
  });

  it('the research worker sees public history, recent conversation, snippets and input, but no private files', async () => {
    const { stage } = await twoTurns();
    const text = requestText(stage('story/research')[0]!);
    for (const seen of ['HISTORY', 'Lia greeted the traveller', 'VISIBLE-REPLY-1', 'PLAYER-INPUT-1', 'SOURCE-TAVERN', 'PLAYER-INPUT-2']) expect(text).toContain(seen);
    for (const hidden of [...PRIVATE, 'A traveller arrived', 'Draft of', 'OUTLINE', 'FORESHADOW']) expect(text).not.toContain(hidden);
  });

  it('the director sees outline, foreshadowing, history, brief, proposals and sections, but no private file', async () => {
    const { stage } = await twoTurns();
    const text = requestText(stage('story/director')[0]!);
    for (const seen of ['OUTLINE', 'FORESHADOW', 'HISTORY', 'The tavern is open', 'Lia steps forward', 'Bram steps forward', "Lia's view", 'PLAYER-INPUT-2']) {
      expect(text).toContain(seen);
    }
    for (const hidden of [...PRIVATE, 'A traveller arrived', 'SECTION-SCENE-REF']) expect(text).not.toContain(hidden);
    // The director is told that characters who do not know something must not act omniscient.
    expect(text).toContain('must not act as if they know it');
  });

  it('a section writer sees its own reference, the plan and the input — not other sections or files', async () => {
    const { stage } = await twoTurns();
    const scene = stage('story/section').find((c) => requestText(c).includes('"Scene" section'))!;
    const text = requestText(scene);
    for (const seen of ['SECTION-SCENE-REF', 'Lia greets the player', 'PLAYER-INPUT-2']) expect(text).toContain(seen);
    for (const hidden of [...PRIVATE, 'SECTION-LIA-REF', "Draft of Lia's view", 'OUTLINE', 'FORESHADOW', 'HISTORY', 'SOURCE-TAVERN']) expect(text).not.toContain(hidden);
  });

  it('the editor sees only the ordered section drafts', async () => {
    const { stage } = await twoTurns();
    const text = requestText(stage('story/editor')[0]!);
    expect(text.indexOf('Draft of Scene.')).toBeLessThan(text.indexOf("Draft of Lia's view."));
    for (const hidden of [...PRIVATE, 'OUTLINE', 'FORESHADOW', 'HISTORY', 'SECTION-SCENE-REF', 'SOURCE-TAVERN', 'PLAYER-INPUT-2', 'Lia greets the player']) {
      expect(text).not.toContain(hidden);
    }
  });

  it('the continuity worker sees the final visible reply, outline, foreshadowing and participants — no drafts', async () => {
    const { stage } = await twoTurns();
    const text = requestText(stage('story/continuity')[0]!);
    for (const seen of ['VISIBLE-REPLY-2', 'OUTLINE', 'FORESHADOW', 'lia: Lia', 'bram: Bram']) expect(text).toContain(seen);
    for (const hidden of [...PRIVATE, 'Draft of', 'Lia greets the player', 'Lia steps forward', 'SECTION-SCENE-REF']) expect(text).not.toContain(hidden);
  });
});
