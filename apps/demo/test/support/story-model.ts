import type { Answer } from './api-client.js';
import type { FakeReply, RecordedRequest } from './fake-openai.js';

// What each model call of a story turn is, read from its prompt as a real model server sees it.
const STAGE_MARKERS: readonly [string, string][] = [
  ['research', 'You are the research worker'],
  ['character', 'You play '],
  ['director', 'You are the director of a multi-character'],
  // The kernel's pre-actor director (it offers DIO's tool), not a story stage.
  ['tool-director', 'You are the director of a roleplay conversation'],
  ['section', 'You write the '],
  ['editor', 'You are the editor'],
  ['continuity', 'You are the continuity worker'],
];

/** The story stages that prepare a turn's draft (before the actor); `continuity` settles it after. */
export const PREPARATION_STAGES: ReadonlySet<string> = new Set(['research', 'character', 'director', 'section', 'editor']);

/**
 * Which call of a story turn a model request is.
 * @param body - the request
 * @returns a stage name (`research`, `character`, `director`, `section`, `editor`, `continuity`),
 *   `tool-director` for the kernel's director, else `actor`
 */
export function stageOf(body: RecordedRequest['body']): string {
  const prompt = (body.messages ?? []).map((message) => String(message.content)).join('\n');
  return STAGE_MARKERS.find(([, marker]) => prompt.includes(marker))?.[0] ?? 'actor';
}

const STAGE_ANSWERS: Readonly<Record<string, string>> = {
  research: JSON.stringify({ facts: ['The harbour is foggy.'], continuity: 'The player arrives.' }),
  character: JSON.stringify({ intent: 'greet', action: 'Lia lifts the lamp.', dialogue: 'Evening.' }),
  director: JSON.stringify({ beats: ['Lia greets the player.'], sectionNotes: [] }),
  section: 'Fog rolls over the pier.',
  'tool-director': 'No tool is needed.',
  continuity: JSON.stringify({ publicEvents: ['The player arrived.'], observations: [], proposals: [] }),
};

/** The actor's reply in {@link storyModel}. */
export const STORY_ACTOR_REPLY = '*Lia lifts the lamp.* "Evening."';

/**
 * A fake model answering every story stage with a valid answer (the editor hands the sections
 * back unchanged, so its headings stay) and the actor with {@link STORY_ACTOR_REPLY}.
 * @param actorFails - read per call: while true every actor call answers HTTP 500 (retries included)
 * @returns the reply function for `startFakeOpenAi`
 */
export function storyModel(actorFails: () => boolean): FakeReply {
  return (body) => {
    const stage = stageOf(body);
    if (stage === 'actor') return actorFails() ? { status: 500 } : STORY_ACTOR_REPLY;
    if (stage === 'editor') return String(body.messages?.at(-1)?.content ?? '');
    return STAGE_ANSWERS[stage] ?? '';
  };
}

/**
 * Creates a story workspace with one character and one section and selects it in `session`.
 * @param api - the demo's JSON client
 * @param story - the workspace id
 * @param session - the session
 * @returns the selection's answer
 */
export async function selectNewStory(api: (method: string, path: string, body?: unknown) => Promise<Answer>, story: string, session: string): Promise<Answer> {
  await api('POST', '/api/stories', { id: story, name: 'Harbour tale' });
  await api('POST', `/api/stories/${story}/characters`, { baseRevision: 1, id: 'lia', name: 'Lia' });
  await api('POST', `/api/stories/${story}/sections`, { baseRevision: 2, id: 'scene', title: 'Scene', kind: 'prose' });
  return api('PUT', `/api/sessions/${session}/story`, { storyId: story });
}
