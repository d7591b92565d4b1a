import { describe, expect, it } from 'vitest';
import { freshId, playTurn, streamPost } from './support/api-client.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

// Issue 15's acceptance through the whole app: in a story-enabled chat, regenerate, swipe back
// to step 0 and play on — history.md holds the kept step's settlement only.

const fx = setupWebFixture();
const { api } = fx;

describe('a story-enabled chat after a swipe', () => {
  it('keeps the kept step’s settlement in history.md, and only it', async () => {
    const session = freshId('story-swipe');
    const story = freshId('swipe-tale');
    await api('POST', '/api/stories', { id: story, name: 'Swipe tale' });
    await api('POST', `/api/stories/${story}/characters`, { baseRevision: 1, id: 'lia', name: 'Lia' });
    await api('POST', `/api/stories/${story}/sections`, { baseRevision: 2, id: 'scene', title: 'Scene', kind: 'prose' });
    expect((await api('PUT', `/api/sessions/${session}/story`, { storyId: story })).status).toBe(200);

    const first = (await playTurn(fx.server.url, session, '你好，莉娅。')).find((message) => message.event === 'result')?.data as { turnId: string };
    await streamPost(`${fx.server.url}/api/sessions/${session}/turns/${first.turnId}/regenerate`, {});
    const history = async () => (await fx.demo.workspaces.read(story)).files['history.md'] ?? '';
    expect(await history()).toContain(`<!-- troupe:settle story:${first.turnId}:1 -->`);
    expect(await history()).not.toContain(`<!-- troupe:settle story:${first.turnId} -->`);

    expect((await api('PUT', `/api/sessions/${session}/turns/${first.turnId}/step`, { step: 0 })).status).toBe(200);
    const second = (await playTurn(fx.server.url, session, '今晚有船吗？')).find((message) => message.event === 'result')?.data as { turnId: string };

    const after = await history();
    expect(after).toContain(`<!-- troupe:settle story:${first.turnId} -->`);
    expect(after).not.toContain(`<!-- troupe:settle story:${first.turnId}:1 -->`);
    // The kept step's block stands before the new turn's, in the chat's order.
    expect(after.indexOf(`story:${first.turnId} -->`)).toBeLessThan(after.indexOf(`story:${second.turnId} -->`));
    expect(after.match(/troupe:settle/g)).toHaveLength(2);
  });
});
