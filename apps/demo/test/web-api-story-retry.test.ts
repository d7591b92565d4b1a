import { describe, expect, it } from 'vitest';
import { expectError, freshId, playTurn, streamPost } from './support/api-client.js';
import type { RecordedRequest } from './support/fake-openai.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

// The seed: a draft prepared for the same turn, step, workspace and revision is replayed from the
// session log. From the product that means: the actor fails after the stages, and the player's
// retry of that turn (same turn id) plays the actor again without running the stages again.

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

/** Which story stage a model call is (`actor` when none): read from its prompt, as a real server sees it. */
function stageOf(body: RecordedRequest['body']): string {
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

// While `actorFails` is set every actor call answers 500 (the provider's retries included).
let actorFails = false;
const fx = setupWebFixture({
  fakeModel: {
    use: true,
    reply: (body) => {
      const stage = stageOf(body);
      if (stage === 'actor') return actorFails ? { status: 500 } : '*Lia lifts the lamp.* "Evening."';
      // The editor answers the sections back unchanged (its headings must stay).
      if (stage === 'editor') return String(body.messages?.at(-1)?.content ?? '');
      return STAGE_ANSWERS[stage] ?? '';
    },
  },
});
const { api } = fx;

const PREPARATION = new Set(['research', 'character', 'director', 'section', 'editor']);
const preparationCalls = (from: number) => fx.fake.requests.slice(from).filter((request) => PREPARATION.has(stageOf(request.body))).length;

async function storyChat(): Promise<string> {
  const session = freshId('story-retry');
  const story = freshId('retry-tale');
  await api('POST', '/api/stories', { id: story, name: 'Retry tale' });
  await api('POST', `/api/stories/${story}/characters`, { baseRevision: 1, id: 'lia', name: 'Lia' });
  await api('POST', `/api/stories/${story}/sections`, { baseRevision: 2, id: 'scene', title: 'Scene', kind: 'prose' });
  expect((await api('PUT', `/api/sessions/${session}/story`, { storyId: story })).status).toBe(200);
  return session;
}

/** Plays a turn while the actor fails: the stream ends with an error naming the turn it played. */
async function failedTurn(session: string, text: string): Promise<string> {
  actorFails = true;
  try {
    const messages = await playTurn(fx.server.url, session, text);
    const last = messages.at(-1);
    expect(last?.event).toBe('error');
    const turnId = (last?.data as { turnId?: string } | undefined)?.turnId;
    expect(typeof turnId).toBe('string');
    return turnId as string;
  } finally {
    actorFails = false;
  }
}

const eventsOf = async (session: string, type: string) => (await fx.demo.storage.sessions.read(session)).filter((event) => event.type === type);

describe('retrying a story turn whose actor failed', () => {
  it('replays the prepared draft when the retry carries the failed turn’s id: no stage runs again', async () => {
    const session = await storyChat();
    const turnId = await failedTurn(session, 'Is there a boat tonight?');
    expect((await eventsOf(session, 'agent-rp/story-draft-prepared')).map((event) => event.turnId)).toEqual([turnId]);
    const before = fx.fake.requests.length;

    const retry = await streamPost(`${fx.server.url}/api/sessions/${session}/turns`, { text: 'Is there a boat tonight?', turnId });
    const result = retry.find((message) => message.event === 'result')?.data as { turnId: string; reply: string };
    expect(result.turnId).toBe(turnId);
    expect(result.reply).toContain('Evening.');
    expect((await eventsOf(session, 'agent-rp/story-draft-replayed')).map((event) => event.turnId)).toEqual([turnId]);
    expect(preparationCalls(before)).toBe(0);
    expect(await eventsOf(session, 'agent-rp/story-draft-prepared')).toHaveLength(1);
  });

  it('plays a turn without a turnId as a new turn: the stages run', async () => {
    const session = await storyChat();
    const failed = await failedTurn(session, 'Is there a boat tonight?');
    const before = fx.fake.requests.length;
    const retry = await playTurn(fx.server.url, session, 'Is there a boat tonight?');
    const result = retry.find((message) => message.event === 'result')?.data as { turnId: string };
    expect(result.turnId).not.toBe(failed);
    expect(preparationCalls(before)).toBeGreaterThan(0);
    expect(await eventsOf(session, 'agent-rp/story-draft-replayed')).toHaveLength(0);
  });

  it('refuses the id of a committed turn, visible or removed, before streaming (409 TURN_EXISTS)', async () => {
    const session = await storyChat();
    const played = (await playTurn(fx.server.url, session, 'Hello, Lia.')).find((message) => message.event === 'result')?.data as { turnId: string };
    const before = fx.fake.requests.length;
    const again = await api('POST', `/api/sessions/${session}/turns`, { text: 'Hello, Lia.', turnId: played.turnId });
    expectError(again, 409, 'TURN_EXISTS');
    expect(again.body.message).toContain(played.turnId);

    expect((await api('DELETE', `/api/sessions/${session}/turns/${played.turnId}`)).status).toBe(200);
    expectError(await api('POST', `/api/sessions/${session}/turns`, { text: 'Hello, Lia.', turnId: played.turnId }), 409, 'TURN_EXISTS');
    expect(fx.fake.requests.length).toBe(before);
    expect(await eventsOf(session, 'kernel/turn-committed')).toHaveLength(1);
  });

  it('refuses a malformed turnId (400)', async () => {
    const session = await storyChat();
    const answer = await api('POST', `/api/sessions/${session}/turns`, { text: 'Hello.', turnId: '../x' });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('turnId');
  });
});
