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
});
