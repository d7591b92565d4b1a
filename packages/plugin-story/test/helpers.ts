import { type ChatRequest, contextKeys, definePlugin, type PluginDefinition, type StoryDraft } from '@troupe/kernel';
import { createTestHarness, lastUserMessage, MemoryTreeStore, ScriptedChatModel, type ScriptedAnswer } from '@troupe/kernel/testing';
import { selectStoryWorkspace, StoryWorkspaces, storyPlugin, type StoryPluginOptions } from '../src/index.js';

/** Default, schema-conforming answers for every story stage. */
export const defaultStageAnswers: Record<string, ScriptedAnswer[]> = {
  'story/research': [JSON.stringify({ facts: ['The tavern is open'], continuity: 'Night, rain.' })],
  'story/character': [(req) => JSON.stringify({ intent: 'help', action: `${characterName(req)} steps forward`, dialogue: 'Hello.' })],
  'story/director': [JSON.stringify({ beats: ['Lia greets the player'], sectionNotes: [] })],
  'story/section': [(req) => `Draft of ${sectionTitle(req)}.`],
  'story/editor': [(req) => lastUserMessage(req)],
  'story/continuity': [
    JSON.stringify({
      publicEvents: ['Lia greeted the traveller'],
      observations: [{ characterId: 'lia', facts: ['A traveller arrived'] }],
      proposals: ['Foreshadow the guild debt'],
    }),
  ],
};

/** The character name a character-worker request is for. */
export function characterName(req: ChatRequest): string {
  return /You play (.+?) \(/.exec(req.messages[0]?.content ?? '')?.[1] ?? '?';
}

/** The section title a section-writer request is for. */
export function sectionTitle(req: ChatRequest): string {
  return /write the "(.+?)" section/.exec(req.messages[0]?.content ?? '')?.[1] ?? '?';
}

/** All text a request carried (every message's content). */
export function requestText(req: ChatRequest): string {
  return req.messages.map((m) => m.content).join('\n');
}

/** A scripted model with the default answers, overridable per stage. */
export function storyModel(overrides: Record<string, ScriptedAnswer[]> = {}): ScriptedChatModel {
  return new ScriptedChatModel({ byStage: { ...defaultStageAnswers, ...overrides }, streamChunkSize: false });
}

/** Creates a workspace with two characters (Lia, Bram), a source and two sections. */
export async function seedWorkspace(trees: MemoryTreeStore | import('@troupe/kernel').TreeStore, id = 'tale'): Promise<StoryWorkspaces> {
  const workspaces = new StoryWorkspaces(trees);
  let ws = await workspaces.create(id, { name: 'Tale', outline: 'OUTLINE: the heist', foreshadowing: 'FORESHADOW: the locket' });
  ws = await workspaces.addCharacter(id, ws.revision, { id: 'lia', name: 'Lia', persona: 'LIA-PERSONA brave', knowledge: 'LIA-SECRET the key is under the mat' });
  ws = await workspaces.addCharacter(id, ws.revision, { id: 'bram', name: 'Bram', persona: 'BRAM-PERSONA sly', knowledge: 'BRAM-SECRET he owes the guild' });
  ws = await workspaces.addSource(id, ws.revision, { id: 'lore', title: 'Lore', text: '# Tavern\nThe SOURCE-TAVERN tavern sells ale.\n\n# Guild\nThe guild lends money.' });
  ws = await workspaces.addSection(id, ws.revision, { id: 'scene', title: 'Scene', kind: 'prose', reference: 'SECTION-SCENE-REF' });
  ws = await workspaces.addSection(id, ws.revision, { id: 'lia-view', title: "Lia's view", kind: 'character', focus: 'lia', reference: 'SECTION-LIA-REF' });
  await workspaces.writeFiles(id, ws.revision, { 'history.md': 'HISTORY: the party met at the tavern.\n' });
  return workspaces;
}

/** A plugin that records the story draft the actor would receive. */
export function draftProbe(seen: (StoryDraft | undefined)[]): PluginDefinition {
  return definePlugin({
    name: 'draft-probe',
    version: '0.1.0',
    setup(ctx) {
      ctx.hooks.actorAssemble((prepared, turn) => {
        seen.push(turn.get(contextKeys.storyDraft));
        return prepared;
      });
    },
  });
}

/** A harness with the story plugin on in-memory stores, a seeded workspace selected for session `s1`. */
export async function storyHarness(options: { model?: ScriptedChatModel; plugin?: StoryPluginOptions; select?: boolean; before?: readonly PluginDefinition[] } = {}) {
  const trees = new MemoryTreeStore();
  const workspaces = await seedWorkspace(trees);
  const drafts: (StoryDraft | undefined)[] = [];
  const model = options.model ?? storyModel();
  const test = await createTestHarness({ trees, model, plugins: [...(options.before ?? []), storyPlugin(options.plugin), draftProbe(drafts)] });
  if (options.select !== false) await selectStoryWorkspace(test.sessionLog, 's1', 'tale');
  return { ...test, workspaces, drafts };
}
