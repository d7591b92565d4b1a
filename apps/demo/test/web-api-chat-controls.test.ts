import { describe, expect, it } from 'vitest';
import { expectError, freshId, playTurn, streamPost } from './support/api-client.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const fx = setupWebFixture();
const { api } = fx;

interface MessageView {
  turnId: string;
  input: string;
  reply: string;
  steps: { step: number }[];
}

describe('chat controls API', () => {
  it('an edit gets the checks a new line gets: a blank or oversized line and an empty reply are refused, and nothing changes', async () => {
    const session = freshId('edit-checks');
    await playTurn(fx.server.url, session, 'A line.');
    const [turn] = (await api('GET', `/api/sessions/${session}/messages`)).body.messages as MessageView[];
    const path = `/api/sessions/${session}/turns/${turn?.turnId}`;
    for (const body of [{ input: '   ' }, { input: 'z'.repeat(8_001) }, { reply: '' }, { reply: ' \n ' }, { reply: 'y'.repeat(200_001) }]) {
      expect((await api('PATCH', path, body)).status).toBe(400);
    }
    const after = (await api('GET', `/api/sessions/${session}/messages`)).body.messages as MessageView[];
    expect(after.map((message) => [message.input, message.reply])).toEqual([[turn?.input, turn?.reply]]);
    // The same edit with text in it is taken (trimmed, as a new line is).
    expect((await api('PATCH', path, { input: '  A fixed line.  ' })).body.turn).toMatchObject({ input: 'A fixed line.' });
  });

  it('continue and regenerate in a chat with no reply answer a plain 404 before any stream starts', async () => {
    const empty = freshId('nothing-yet');
    const continued = await fetch(`${fx.server.url}/api/sessions/${empty}/continue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(continued.status).toBe(404);
    expect(continued.headers.get('content-type')).toContain('application/json');
    expect((await continued.json()).code).toBe('KERNEL_TURN_NOT_FOUND');
    const regenerated = await api('POST', `/api/sessions/${empty}/turns/t1/regenerate`, {});
    expectError(regenerated, 404, 'KERNEL_TURN_NOT_FOUND');
    expect(regenerated.body.message).toContain('has no reply to regenerate');
  });

  it('edits a reply, deletes from a turn on, and refuses unknown turns and steps with the kernel codes', async () => {
    const session = freshId('controls');
    for (const text of ['第一句。', '第二句。', '第三句。']) await playTurn(fx.server.url, session, text);
    const before = (await api('GET', `/api/sessions/${session}/messages`)).body.messages as MessageView[];
    expect(before.map((message) => message.input)).toEqual(['第一句。', '第二句。', '第三句。']);
    const [first, second, third] = before as [MessageView, MessageView, MessageView];

    const edited = await api('PATCH', `/api/sessions/${session}/turns/${second.turnId}`, { reply: '莉娅把灯递给你。' });
    expect(edited.status).toBe(200);
    expect(edited.body.turn).toMatchObject({ turnId: second.turnId, reply: '莉娅把灯递给你。', edited: true });

    const removed = await api('DELETE', `/api/sessions/${session}/turns/${third.turnId}`);
    expect(removed.body).toEqual({ sessionId: session, removed: [third.turnId] });
    const after = (await api('GET', `/api/sessions/${session}/messages`)).body.messages as MessageView[];
    expect(after.map((message) => [message.input, message.reply])).toEqual([
      [first.input, first.reply],
      ['第二句。', '莉娅把灯递给你。'],
    ]);

    expect((await api('PUT', `/api/sessions/${session}/turns/${first.turnId}/step`, { step: 0 })).body.turn).toMatchObject({ step: 0 });
    expectError(await api('PUT', `/api/sessions/${session}/turns/${first.turnId}/step`, { step: 7 }), 404, 'KERNEL_STEP_NOT_FOUND');
    expectError(await api('PUT', `/api/sessions/${session}/turns/${third.turnId}/step`, { step: 0 }), 404, 'KERNEL_TURN_NOT_FOUND');
    expectError(await api('PATCH', `/api/sessions/${session}/turns/${first.turnId}`, {}), 400, 'KERNEL_CHAT_CONTROL_INVALID');
  });

  it('regenerates the last reply as a new step, swipes back to the first, and continues the kept reply', async () => {
    const session = freshId('regen');
    await playTurn(fx.server.url, session, '你好，莉娅。');
    const [turn] = (await api('GET', `/api/sessions/${session}/messages`)).body.messages as [MessageView];
    const regenerated = await streamPost(`${fx.server.url}/api/sessions/${session}/turns/${turn.turnId}/regenerate`);
    expect(regenerated.at(-1)).toMatchObject({ event: 'result', data: { turnId: turn.turnId, step: 1 } });
    expect((await api('PUT', `/api/sessions/${session}/turns/${turn.turnId}/step`, { step: 0 })).body.turn).toMatchObject({ step: 0, reply: turn.reply });

    const continued = await streamPost(`${fx.server.url}/api/sessions/${session}/continue`);
    const result = continued.at(-1);
    expect(result?.event).toBe('result');
    const data = result?.data as { step: number; reply: string };
    expect(data.step).toBe(2);
    expect(data.reply.startsWith(turn.reply)).toBe(true);
    const [after] = (await api('GET', `/api/sessions/${session}/messages`)).body.messages as [MessageView];
    expect(after.steps.map((step) => step.step)).toEqual([0, 1, 2]);
    expect(after.reply).toBe(data.reply);
    expectError(await api('POST', `/api/sessions/${session}/turns/not-last/regenerate`, {}), 404, 'KERNEL_TURN_NOT_FOUND');
  });

  it('two regenerations sent at once (two tabs) keep both replies as steps 1 and 2', async () => {
    const session = freshId('regen-race');
    await playTurn(fx.server.url, session, '你好。');
    const [turn] = (await api('GET', `/api/sessions/${session}/messages`)).body.messages as [MessageView];
    const url = `${fx.server.url}/api/sessions/${session}/turns/${turn.turnId}/regenerate`;
    const results = await Promise.all([streamPost(url), streamPost(url)]);
    expect(results.map((events) => (events.at(-1)?.data as { step?: number } | undefined)?.step).sort()).toEqual([1, 2]);
    const [after] = (await api('GET', `/api/sessions/${session}/messages`)).body.messages as [MessageView];
    expect(after.steps.map((step) => step.step)).toEqual([0, 1, 2]);
  });
});
