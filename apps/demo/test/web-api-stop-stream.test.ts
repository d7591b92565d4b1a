import { describe, expect, it } from 'vitest';
import { freshId, playTurn } from './support/api-client.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const fx = setupWebFixture({ fakeModel: { reply: (_body, index) => `回复${index + 1}：灯亮了。`, use: true } });
const { api } = fx;

interface Committed {
  readonly type: string;
  readonly turnId: string;
  readonly step: number;
  readonly data: { readonly input?: string };
}

/**
 * Starts a streaming route while the model holds its answer after the first piece, reads until
 * the first `delta` arrives and closes the connection — what the web app's Stop does.
 * @returns resolves once the model call was cancelled upstream
 */
async function stopMidStream(path: string, body: unknown): Promise<void> {
  const upstreamClosed = fx.fake.holdNextStream();
  const controller = new AbortController();
  const response = await fetch(`${fx.server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: controller.signal });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let seen = '';
  while (!seen.includes('event: delta')) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before a delta: ${seen}`);
    seen += decoder.decode(value, { stream: true });
  }
  controller.abort();
  await upstreamClosed;
}

const committed = async (session: string): Promise<Committed[]> =>
  ((await fx.demo.storage.sessions.read(session)) as unknown as Committed[]).filter((event) => event.type === 'kernel/turn-committed');

describe('stopping a streamed reply (closing the stream)', () => {
  it('commits nothing for a stopped turn or a stopped continue, and the next actor never sees them', async () => {
    const session = freshId('stop');
    await playTurn(fx.server.url, session, '第一句。');
    const [first] = (await api('GET', `/api/sessions/${session}/messages`)).body.messages as [{ turnId: string; reply: string }];

    await stopMidStream(`/api/sessions/${session}/turns`, { text: '停下。' });
    await stopMidStream(`/api/sessions/${session}/continue`, {});
    // Turns of a session run one at a time: once this one is committed, the stopped runs have ended.
    await playTurn(fx.server.url, session, '第二句。');

    const commits = await committed(session);
    expect(commits.map((event) => [event.data.input, event.step])).toEqual([
      ['第一句。', 0],
      ['第二句。', 0],
    ]);
    const messages = (await api('GET', `/api/sessions/${session}/messages`)).body.messages as { turnId: string; reply: string; steps: unknown[] }[];
    expect(messages[0]).toMatchObject({ turnId: first.turnId, reply: first.reply });
    expect(messages[0]?.steps).toHaveLength(1);
    const actor = fx.fake.requests.at(-1);
    expect(JSON.stringify(actor?.body.messages)).toContain('第二句。');
    expect(JSON.stringify(actor?.body.messages)).not.toContain('停下。');
  });
});
