import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectError, freshId, playTurn, streamPost } from './support/api-client.js';
import { upload } from './support/corpus.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const fx = setupWebFixture();
const { api } = fx;

interface MessageView {
  turnId: string;
  step: number;
  input: string;
  reply: string;
  edited?: boolean;
  steps: { step: number }[];
}

const messagesOf = async (session: string) => (await api('GET', `/api/sessions/${session}/messages`)).body.messages as MessageView[];
const eventTypes = async (session: string) => ((await api('GET', `/api/sessions/${session}/events`)).body.events as { type: string }[]).map((event) => event.type);
const LASTING = '从现在起莉娅都用短句回答，少用比喻。';

describe('branch from an exchange', () => {
  it('copies the chat up to that exchange as the player sees it now; later turns and their DIO requirement stay out; both go on apart', async () => {
    const session = freshId('branch');
    await playTurn(fx.server.url, session, '你好，莉娅。');
    await playTurn(fx.server.url, session, '灯塔里有谁？');
    const [first, second] = (await messagesOf(session)) as [MessageView, MessageView];
    // Two replies for the second exchange, then a third exchange that states a lasting requirement.
    await streamPost(`${fx.server.url}/api/sessions/${session}/turns/${second.turnId}/regenerate`);
    await playTurn(fx.server.url, session, LASTING);
    expect(await eventTypes(session)).toContain('dio/scheduled');
    // After the third exchange: swipe the second back to its first reply, and edit the first reply.
    await api('PUT', `/api/sessions/${session}/turns/${second.turnId}/step`, { step: 0 });
    await api('PATCH', `/api/sessions/${session}/turns/${first.turnId}`, { reply: '莉娅放下灯：“欢迎。”' });
    const parentBefore = await messagesOf(session);
    const parentEvents = (await eventTypes(session)).length;

    const branch = await api('POST', `/api/sessions/${session}/turns/${second.turnId}/branch`, {});
    expect(branch.status).toBe(201);
    const id = branch.body.sessionId as string;
    expect(id).toMatch(/^branch-[0-9a-f]{12}$/);
    expect(branch.body).toMatchObject({ from: session, chatId: null, storyId: null, dio: [] });
    const shown = (list: MessageView[]) => list.map((m) => ({ turnId: m.turnId, step: m.step, input: m.input, reply: m.reply, steps: m.steps.map((s) => s.step) }));
    // The branch shows the first two exchanges exactly as the parent shows them (the later swipe and edit applied).
    expect(shown(await messagesOf(id))).toEqual(shown(parentBefore.slice(0, 2)));
    expect(shown(branch.body.messages as MessageView[])).toEqual(shown(parentBefore.slice(0, 2)));
    expect((await messagesOf(id))[0]).toMatchObject({ reply: '莉娅放下灯：“欢迎。”', edited: true });
    expect((await messagesOf(id))[1]).toMatchObject({ step: 0, steps: [{ step: 0 }, { step: 1 }] });
    // The third exchange's requirement is not the branch's: no DIO event of it was copied.
    expect(await eventTypes(id)).not.toContain('dio/scheduled');
    // The parent is untouched.
    expect(await messagesOf(session)).toEqual(parentBefore);
    expect((await eventTypes(session)).length).toBe(parentEvents);

    // Each goes on by itself.
    await playTurn(fx.server.url, id, '在分支里，我推开门。');
    expect((await messagesOf(id)).map((m) => m.input)).toEqual(['你好，莉娅。', '灯塔里有谁？', '在分支里，我推开门。']);
    expect((await messagesOf(session)).map((m) => m.input)).toEqual(['你好，莉娅。', '灯塔里有谁？', LASTING]);
  });

  it('branching from the last exchange copies everything; a taken or invalid id and an unknown exchange write nothing', async () => {
    const session = freshId('branch-last');
    await playTurn(fx.server.url, session, '你好。');
    await playTurn(fx.server.url, session, '再见。');
    const [first, second] = (await messagesOf(session)) as [MessageView, MessageView];
    const to = freshId('branch-named');
    const branch = await api('POST', `/api/sessions/${session}/turns/${second.turnId}/branch`, { to });
    expect(branch.status).toBe(201);
    expect(branch.body.sessionId).toBe(to);
    expect(await eventTypes(to)).toEqual(await eventTypes(session));

    const before = await eventTypes(session);
    expectError(await api('POST', `/api/sessions/${session}/turns/${first.turnId}/branch`, { to }), 409, 'SESSION_EXISTS');
    expectError(await api('POST', `/api/sessions/${session}/turns/${first.turnId}/branch`, { to: 'Not A Valid Id!' }), 400, 'INVALID_REQUEST');
    expectError(await api('POST', `/api/sessions/${session}/turns/no-such-turn/branch`, {}), 404, 'KERNEL_TURN_NOT_FOUND');
    expectError(await api('POST', `/api/sessions/${freshId('empty')}/turns/${first.turnId}/branch`, {}), 404, 'KERNEL_TURN_NOT_FOUND');
    // A removed exchange is not visible any more: nothing to branch from.
    await api('DELETE', `/api/sessions/${session}/turns/${second.turnId}`);
    expectError(await api('POST', `/api/sessions/${session}/turns/${second.turnId}/branch`, {}), 404, 'KERNEL_TURN_NOT_FOUND');
    expect((await eventTypes(session)).length).toBe(before.length + 1);
    expect((await messagesOf(to)).length).toBe(2);
  });

  it('a lasting requirement stated before the branch point comes along: the DIO conversation is forked into the branch', async () => {
    const session = freshId('branch-dio');
    await playTurn(fx.server.url, session, LASTING);
    await playTurn(fx.server.url, session, '灯塔里有谁？');
    const [, second] = (await messagesOf(session)) as [MessageView, MessageView];
    const branch = await api('POST', `/api/sessions/${session}/turns/${second.turnId}/branch`, {});
    expect(branch.status).toBe(201);
    expect(branch.body.dio).toEqual([expect.objectContaining({ status: 'forked', requirements: 1 })]);
    expect(await eventTypes(branch.body.sessionId as string)).toContain('dio/conversation-forked');
  });

  it('a story-enabled chat branches with its own copy of the story: without the later turns, and the parent story untouched', async () => {
    const session = freshId('branch-story');
    const story = freshId('branch-tale');
    await api('POST', '/api/stories', { id: story, name: 'Branch tale' });
    await api('POST', `/api/stories/${story}/characters`, { baseRevision: 1, id: 'lia', name: 'Lia' });
    await api('PUT', `/api/sessions/${session}/story`, { storyId: story });
    for (const text of ['你好，莉娅。', '灯塔里有谁？', '今晚有船吗？']) await playTurn(fx.server.url, session, text);
    const [, second, third] = (await messagesOf(session)) as [MessageView, MessageView, MessageView];
    const history = async (id: string) => (await fx.demo.workspaces.read(id)).files['history.md'] ?? '';
    const parentHistory = await history(story);
    expect(parentHistory).toContain(`story:${third.turnId} -->`);

    const branch = await api('POST', `/api/sessions/${session}/turns/${second.turnId}/branch`, {});
    expect(branch.status).toBe(201);
    const copy = branch.body.storyId as string;
    expect(copy).toMatch(new RegExp(`^${story}-b-[0-9a-f]{6}$`));
    expect((await api('GET', `/api/sessions/${branch.body.sessionId}/story`)).body.storyId).toBe(copy);
    expect(await history(copy)).toContain(`story:${second.turnId} -->`);
    expect(await history(copy)).not.toContain(`story:${third.turnId} -->`);
    // The branch plays on in its copy; the parent's story is as it was.
    await playTurn(fx.server.url, branch.body.sessionId as string, '我们去码头。');
    expect((await history(copy)).match(/troupe:settle/g)).toHaveLength(3);
    expect(await history(story)).toBe(parentHistory);
  });

  it('a library chat branches into a chat of its own: same character, preset, persona and greeting, its title marked', async () => {
    const card = { spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Mira', description: '{{char}} maps the fog for {{user}}.', first_mes: 'You must be {{user}}.', alternate_greetings: ['Late again, {{user}}?'] } };
    const characterId = (await upload(fx.server.url, '/api/characters', new TextEncoder().encode(JSON.stringify(card)), 'mira.json')).body.id as string;
    const chat = (await api('POST', '/api/chats', { characterId })).body as { id: string; title: string; presetId: string; personaId: string };
    await api('PATCH', `/api/chats/${chat.id}`, { greetingIndex: 1 });
    await playTurn(fx.server.url, chat.id, 'Hello there.');
    await playTurn(fx.server.url, chat.id, 'Where am I?');
    const [first] = (await messagesOf(chat.id)) as [MessageView];
    const branch = await api('POST', `/api/sessions/${chat.id}/turns/${first.turnId}/branch`, {});
    expect(branch.status).toBe(201);
    const chatId = branch.body.chatId as string;
    expect(chatId).toMatch(/^chat-[0-9a-f]{12}$/);
    expect(branch.body.sessionId).toBe(chatId);
    const copy = (await api('GET', `/api/chats/${chatId}`)).body;
    expect(copy).toMatchObject({ characterId, presetId: chat.presetId, personaId: chat.personaId, greetingIndex: 1, title: `${chat.title} (分支 branch)` });
    expect((await messagesOf(chatId)).map((m) => m.input)).toEqual(['Hello there.']);
    // The branch plays the same character: its card is in the actor's prompt.
    const result = (await playTurn(fx.server.url, chatId, 'Who are you?')).at(-1);
    expect(result?.event).toBe('result');
    expect(JSON.stringify((result?.data as { prepared?: unknown } | undefined)?.prepared)).toContain('Mira maps the fog for User.');
  });

  it('a branch that cannot copy its story leaves nothing behind: no session, no story copy, no chat', async () => {
    const session = freshId('branch-damaged');
    const storyId = freshId('story-damaged');
    expect((await api('POST', '/api/stories', { id: storyId, name: 'Damaged later' })).status).toBe(201);
    expect((await api('PUT', `/api/sessions/${session}/story`, { storyId })).status).toBe(200);
    await playTurn(fx.server.url, session, '你好。');
    const [turn] = await messagesOf(session);
    const storiesBefore = (await api('GET', '/api/stories')).body.stories.length as number;
    // The story's store record is damaged after the turn: the branch cannot copy it.
    await writeFile(join(fx.dataDir, 'story-workspaces', storyId, '.troupe', 'record.json'), '{"format": 2}');
    const to = freshId('branch-left');
    const branch = await api('POST', `/api/sessions/${session}/turns/${turn?.turnId}/branch`, { to });
    expectError(branch, 409, 'TREE_CORRUPT');
    const sessions = (await api('GET', '/api/sessions')).body.sessions as { id: string }[];
    expect(sessions.map((row) => row.id)).not.toContain(to);
    expect((await api('GET', '/api/stories')).body.stories.length).toBe(storiesBefore);
    expect((await api('GET', '/api/chats')).body.chats.map((chat: { id: string }) => chat.id)).not.toContain(to);
  });
});
