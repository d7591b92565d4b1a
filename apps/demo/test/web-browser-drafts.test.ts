import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { RUN_BROWSER_TESTS } from './support/browser.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

// An unsaved draft keeps the revision it was started from: whatever reloads the editor meanwhile
// (a turn's write-back, another tab's save), saving it after anything changed shows the conflict
// banner, and the player never loses either side without choosing.

describe.runIf(RUN_BROWSER_TESTS)('unsaved drafts in headless Chromium', () => {
  const fx = setupWebFixture({ browser: 'fail-on-page-errors' });

  const outline = (tab: Page) => tab.getByTestId('file-outline.md');
  const revision = async (tab: Page) => (await tab.getByTestId('revision').textContent()) ?? '';

  const openStoryTab = async (sessionId: string, storyId: string): Promise<Page> => {
    const tab = await fx.browser.context.newPage();
    await tab.goto(`${fx.server.url}/#session=${sessionId}`);
    await tab.getByTestId(`story-${storyId}`).getByRole('button', { name: new RegExp(storyId) }).click();
    await tab.getByTestId('story-editor').waitFor();
    return tab;
  };

  /** Plays a turn with the story enabled and waits until the editor shows the revision its write-back made. */
  const playStoryTurn = async (tab: Page, storyId: string, text: string): Promise<void> => {
    if ((await tab.getByTestId('enabled-badge').count()) === 0) {
      await tab.getByTestId(`enable-${storyId}`).click();
      await tab.getByTestId('enabled-badge').waitFor();
    }
    const before = await revision(tab);
    const replies = await tab.getByTestId('reply').count();
    await tab.getByTestId('chat-input').fill(text);
    await tab.getByTestId('chat-send').click();
    await expect.poll(() => tab.getByTestId('reply').count(), { timeout: 30_000 }).toBe(replies + 1);
    await expect.poll(() => revision(tab), { timeout: 30_000 }).not.toBe(before);
  };

  it('edit → turn → save: the draft survives the reload and saving it shows the conflict banner, not an overwrite', async () => {
    await fx.demo.workspaces.create('draft-turn', { name: 'draft-turn 故事', outline: '# 原大纲\n' });
    const tab = await openStoryTab('drafts-1', 'draft-turn');
    try {
      await outline(tab).fill('# 我的草稿\n');
      await playStoryTurn(tab, 'draft-turn', '你好，莉娅。');
      expect(await outline(tab).inputValue()).toBe('# 我的草稿\n');
      const afterTurn = await fx.demo.workspaces.read('draft-turn');
      await tab.getByTestId('save-outline.md').click();
      await tab.getByTestId('conflict').waitFor();
      // Nothing was written over what the turn left.
      expect((await fx.demo.workspaces.read('draft-turn')).revision).toBe(afterTurn.revision);
      expect((await fx.demo.workspaces.read('draft-turn')).files['outline.md']).toBe('# 原大纲\n');
      // The player chooses: reload keeping the draft, then save it on the latest revision.
      await tab.getByTestId('conflict-reload').click();
      await tab.getByTestId('conflict').waitFor({ state: 'detached' }); // the latest revision is loaded
      expect(await outline(tab).inputValue()).toBe('# 我的草稿\n');
      await tab.getByTestId('save-outline.md').click();
      await expect.poll(async () => (await fx.demo.workspaces.read('draft-turn')).files['outline.md']).toBe('# 我的草稿\n');
      expect((await fx.demo.workspaces.read('draft-turn')).files['history.md']).toBe(afterTurn.files['history.md']);
    } finally {
      await tab.close();
    }
  });

  it('two tabs: a draft started before the other tab saved still conflicts after its tab reloaded', async () => {
    await fx.demo.workspaces.create('two-tabs', { name: 'two-tabs 故事', outline: '# 原大纲\n' });
    const first = await openStoryTab('drafts-2', 'two-tabs');
    const second = await openStoryTab('drafts-3', 'two-tabs');
    try {
      await outline(first).fill('# 第一个标签页的草稿\n');
      await outline(second).fill('# 第二个标签页保存的版本\n');
      await second.getByTestId('save-outline.md').click();
      await expect.poll(async () => (await fx.demo.workspaces.read('two-tabs')).files['outline.md']).toBe('# 第二个标签页保存的版本\n');
      // Something reloads the first tab's editor (here a turn) while its draft is unsaved.
      await playStoryTurn(first, 'two-tabs', '你好。');
      expect(await outline(first).inputValue()).toBe('# 第一个标签页的草稿\n');
      await first.getByTestId('save-outline.md').click();
      await first.getByTestId('conflict').waitFor();
      expect((await fx.demo.workspaces.read('two-tabs')).files['outline.md']).toBe('# 第二个标签页保存的版本\n');
      // Discarding is a choice too: the other tab's text is what the editor shows then.
      await first.getByTestId('conflict-discard').click();
      await expect.poll(() => outline(first).inputValue()).toBe('# 第二个标签页保存的版本\n');
    } finally {
      await first.close();
      await second.close();
    }
  });
});
