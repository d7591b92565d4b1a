import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { RUN_BROWSER_TESTS } from './support/browser.js';
import { setupWebFixture } from './support/setup-web-fixture.js';
import { PREPARATION_STAGES, selectNewStory, STORY_ACTOR_REPLY, stageOf, storyModel } from './support/story-model.js';

const POLL = { timeout: 30_000 };

// The seed's replay from the player's side: the actor fails after the story stages prepared the
// draft, the line goes back into the box, and sending it again unchanged retries that turn (the
// draft is replayed, no stage runs again); an edited line is a new turn that prepares its own.
describe.runIf(RUN_BROWSER_TESTS)('resending a story line whose reply failed (headless Chromium)', () => {
  let actorFails = false;
  const fx = setupWebFixture({ fakeModel: { use: true, reply: storyModel(() => actorFails) }, browser: 'fail-on-page-errors' });
  let opened: Page | undefined;

  const eventsOf = async (session: string, type: string) => (await fx.demo.storage.sessions.read(session)).filter((event) => event.type === type);
  const preparationCalls = (from: number) => fx.fake.requests.slice(from).filter((request) => PREPARATION_STAGES.has(stageOf(request.body))).length;

  /**
   * Opens a story chat in a page of its own and sends `line` while the actor fails.
   * @returns the page (the line is back in its box) and the failed turn's id
   */
  async function failOnce(session: string, line: string): Promise<{ page: Page; failed: string }> {
    expect((await selectNewStory(fx.api, `${session}-tale`, session)).status).toBe(200);
    // A page of its own: the chat opens on this session, with nothing remembered from another test.
    await opened?.close();
    const page = await fx.browser.context.newPage();
    opened = page;
    await page.goto(`${fx.server.url}/#session=${session}`);
    actorFails = true;
    try {
      await page.getByTestId('chat-input').fill(line);
      await page.getByTestId('chat-input').press('Enter');
      await expect.poll(async () => ((await page.getByRole('alert').count()) > 0 ? ((await page.getByRole('alert').textContent()) ?? '') : ''), POLL).toContain('HTTP 500');
    } finally {
      actorFails = false;
    }
    expect(await page.getByTestId('chat-input').inputValue()).toBe(line);
    const [failed] = await eventsOf(session, 'kernel/turn-failed');
    expect(await eventsOf(session, 'agent-rp/story-draft-prepared')).toHaveLength(1);
    return { page, failed: failed?.turnId ?? '' };
  }

  const replyShown = (page: Page) => expect.poll(() => page.getByTestId('reply').count(), POLL).toBe(1);

  it('replays the prepared draft when the unchanged line is sent again', async () => {
    const session = 'retry-unchanged';
    const { page, failed } = await failOnce(session, 'Is there a boat tonight?');
    const before = fx.fake.requests.length;
    await page.getByTestId('chat-input').press('Enter');
    await replyShown(page);
    expect(await page.getByTestId('reply').textContent()).toContain(STORY_ACTOR_REPLY.slice(-9, -1));
    expect((await eventsOf(session, 'kernel/turn-committed')).map((event) => event.turnId)).toEqual([failed]);
    expect((await eventsOf(session, 'agent-rp/story-draft-replayed')).map((event) => event.turnId)).toEqual([failed]);
    expect(preparationCalls(before)).toBe(0);
  });

  it('plays an edited line as a new turn that prepares its own draft', async () => {
    const session = 'retry-edited';
    const { page, failed } = await failOnce(session, 'Is there a boat tonight?');
    const before = fx.fake.requests.length;
    await page.getByTestId('chat-input').fill('Is there a ship tonight?');
    await page.getByTestId('chat-input').press('Enter');
    await replyShown(page);
    const [committed] = await eventsOf(session, 'kernel/turn-committed');
    expect(committed?.turnId).not.toBe(failed);
    expect(await eventsOf(session, 'agent-rp/story-draft-replayed')).toHaveLength(0);
    expect(preparationCalls(before)).toBeGreaterThan(0);
  });
});
