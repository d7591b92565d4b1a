import { describe, expect, it } from 'vitest';
import { playTurn } from './support/api-client.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

// A reasoning model served without a reasoning parser: its thinking arrives inline as
// `<think>…</think>` before the reply (QwQ, DeepSeek-R1 distills on a plain chat template).

const fx = setupWebFixture({ fakeModel: { reply: '<think>The traveler sounds nervous. Lia should stay calm.</think>\n\n*Lia sets down the lamp.* "Sit. Tell me who sent you."', use: true } });
const { api } = fx;

describe('a reasoning model in the app', () => {
  it('streams the reasoning apart, keeps it out of the reply and the next prompt, and keeps it with the turn for a collapsed view', async () => {
    const messages = await playTurn(fx.server.url, 'thinking', 'Good evening.');
    const reasoning = messages.filter((message) => message.event === 'reasoning').map((message) => (message.data as { text: string }).text);
    expect(reasoning.join('')).toBe('The traveler sounds nervous. Lia should stay calm.');
    const deltas = messages.filter((message) => message.event === 'delta').map((message) => (message.data as { text: string }).text).join('');
    expect(deltas).not.toContain('think');
    const result = messages.at(-1)?.data as { reply: string; reasoning?: string };
    expect(result.reply).toBe('*Lia sets down the lamp.* "Sit. Tell me who sent you."');
    expect(result.reasoning).toBe('The traveler sounds nervous. Lia should stay calm.');
    const history = await api('GET', '/api/sessions/thinking/messages');
    expect(history.body.messages[0]).toMatchObject({ reply: result.reply, reasoning: result.reasoning });
    const before = fx.fake.requests.length;
    await playTurn(fx.server.url, 'thinking', 'Nobody sent me.');
    const next = fx.fake.requests.slice(before).find((request) => request.body.stream);
    const sent = JSON.stringify(next?.body.messages);
    expect(sent).toContain('Tell me who sent you.');
    expect(sent).not.toContain('The traveler sounds nervous');
  });
});
