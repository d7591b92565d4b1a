import { describe, expect, it } from 'vitest';
import { checkStructure, editorMessages, type SectionDraft } from '../src/stages/editor.js';
import type { DirectorPlan, SectionDefinition } from '../src/stages/director.js';
import { sectionMessages } from '../src/stages/section.js';
import { STORY_EVENTS } from '../src/index.js';
import { requestText, storyHarness, storyModel } from './helpers.js';

const plan: DirectorPlan = { beats: ['Lia opens the door'], sectionNotes: [] };
const system = (section: SectionDefinition) => sectionMessages({ section, reference: '', plan, playerInput: 'hi' })[0]?.content ?? '';
const drafts: SectionDraft[] = [
  { id: 'scene', title: 'Scene', kind: 'prose', text: 'A.' },
  { id: 'view', title: 'View', kind: 'character', text: 'B.' },
];

describe('section kinds and the editor structure (seed: 正文分区)', () => {
  it('a character section focused on one character may show only what the plan makes public', () => {
    const text = system({ id: 'v', title: 'View', kind: 'character', focus: { id: 'lia', name: 'Lia' } });
    expect(text).toContain('Lia (lia)');
    expect(text).toContain("show only what the director's plan makes public");
    expect(text).toContain('never anything else that character privately knows');
  });

  it('a history section uses only facts that are already public; prose writes narration and dialogue', () => {
    expect(system({ id: 'h', title: 'Records', kind: 'history', focus: null })).toContain('using only facts that are already public');
    expect(system({ id: 'p', title: 'Scene', kind: 'prose', focus: null })).toContain('Write narration, setting, action and dialogue');
  });

  it('the editor is told never to merge or reorder, and single prose gets no heading', () => {
    expect(editorMessages({ drafts })[0]?.content).toContain('never merge or reorder sections');
    expect(editorMessages({ drafts })[1]?.content).toBe('## Scene\n\nA.\n\n## View\n\nB.');
    const single = editorMessages({ drafts: [drafts[0]!] });
    expect(single[0]?.content).toContain('do not add headings');
    expect(single[1]?.content).toBe('A.');
  });

  it('checkStructure rejects reordered, merged or renamed sections and a heading on single prose', () => {
    expect(() => checkStructure('## Scene\n\nA2.\n\n## View\n\nB2.', drafts)).not.toThrow();
    for (const edited of ['## View\n\nB.\n\n## Scene\n\nA.', '## Scene\n\nA. B.', '## Scene\n\nA.\n\n## Views\n\nB.']) {
      expect(() => checkStructure(edited, drafts)).toThrow(expect.objectContaining({ code: 'STORY_EDITOR_STRUCTURE' }));
    }
    expect(() => checkStructure('## Scene\n\nA.', [drafts[0]!])).toThrow(expect.objectContaining({ code: 'STORY_EDITOR_STRUCTURE' }));
  });

  it('in a turn, an editor that reorders the sections is not used: the section drafts go on in order', async () => {
    const reorder = () => "## Lia's view\n\nDraft of Lia's view.\n\n## Scene\n\nDraft of Scene.";
    const { harness, drafts: seen, model } = await storyHarness({ model: storyModel({ 'story/editor': [reorder] }) });
    const result = await harness.runTurn({ sessionId: 's1', text: 'hello', turnId: 't1' });
    expect(seen[0]?.text).toBe("## Scene\n\nDraft of Scene.\n\n## Lia's view\n\nDraft of Lia's view.");
    expect(result.events.find((e) => e.type === STORY_EVENTS.degraded)?.data).toMatchObject({ stage: 'story/editor', fallback: 'section-drafts', error: { code: 'STORY_EDITOR_STRUCTURE' } });
    expect(requestText(model.callsFor('story/editor')[0]!)).toContain('never merge or reorder');
  });
});
