import { describe, expect, it } from 'vitest';
import { expectError, freshId, playTurn, streamPost } from './support/api-client.js';
import { setupWebFixture } from './support/setup-web-fixture.js';
import { PREPARATION_STAGES, selectNewStory, stageOf, storyModel } from './support/story-model.js';

// The seed: a draft prepared for the same turn, step, workspace and revision is replayed from the
// session log. From the product that means: the actor fails after the stages, and the player's
// retry of that turn (same turn id) plays the actor again without running the stages again.

// While `actorFails` is set every actor call answers 500 (the provider's retries included).
let actorFails = false;
const fx = setupWebFixture({ fakeModel: { use: true, reply: storyModel(() => actorFails) } });
const { api } = fx;

const preparationCalls = (from: number) => fx.fake.requests.slice(from).filter((request) => PREPARATION_STAGES.has(stageOf(request.body))).length;

async function storyChat(): Promise<string> {
  const session = freshId('story-retry');
  expect((await selectNewStory(api, freshId('retry-tale'), session)).status).toBe(200);
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
