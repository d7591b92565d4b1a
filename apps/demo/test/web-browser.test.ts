import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserFixture, CHROMIUM, launchBrowser } from './support/browser.js';
import { startWebFixture, type WebFixture } from './support/web-fixture.js';

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`web-browser tests skipped: ${CHROMIUM} does not exist (apt-get install chromium)`);

describe.skipIf(!hasChromium)('web app in headless Chromium', () => {
  let fx: WebFixture;
  let browser: BrowserFixture;
  let page: Page;
  // Uncaught errors in the page fail the test that caused them.
  const pageErrors: string[] = [];

  beforeAll(async () => {
    fx = await startWebFixture();
    browser = await launchBrowser();
    browser.context.on('weberror', (error) => pageErrors.push(error.error().message));
    page = await browser.context.newPage();
    await page.goto(`${fx.server.url}/#session=browser-1`);
  });

  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  const outline = (p: Page) => p.getByTestId('file-outline.md');

  it('creates a story, edits the outline and saves it', async () => {
    await page.getByTestId('new-story-id').fill('night-market');
    await page.getByTestId('new-story-name').fill('夜市 Night Market');
    await page.getByTestId('create-story').click();
    await expect.poll(() => page.getByTestId('editor-title').textContent()).toBe('夜市 Night Market');
    await outline(page).fill('# 大纲\n\n1. 灯笼亮起，莉娅在夜市摆摊。\n');
    await page.getByTestId('save-outline.md').click();
    await expect.poll(() => page.getByTestId('revision').textContent()).toContain('rev 2');
    const saved = await fx.demo.workspaces.read('night-market');
    expect(saved.files['outline.md']).toBe('# 大纲\n\n1. 灯笼亮起，莉娅在夜市摆摊。\n');
  });

  it('shows a conflict when a second tab saves over a newer edit, and re-applies after a reload', async () => {
    const second = await browser.context.newPage();
    try {
      await second.goto(`${fx.server.url}/#session=browser-1`);
      await second.getByTestId('story-night-market').getByRole('button', { name: /夜市/ }).click();
      await expect.poll(() => second.getByTestId('revision').textContent()).toContain('rev 2');

      // The first tab saves a newer outline…
      await outline(page).fill('# 大纲\n\n1. 第一个标签页的新版本。\n');
      await page.getByTestId('save-outline.md').click();
      await expect.poll(() => page.getByTestId('revision').textContent()).toContain('rev 3');

      // …so the second tab, still on revision 2, is refused and told why.
      await outline(second).fill('# 大纲\n\n1. 第二个标签页的修改。\n');
      await second.getByTestId('save-outline.md').click();
      const conflict = second.getByTestId('conflict');
      await conflict.waitFor();
      expect(await conflict.textContent()).toContain('有人在你编辑时修改了这个故事');
      expect(await conflict.textContent()).toContain('Someone else changed');
      expect((await fx.demo.workspaces.read('night-market')).files['outline.md']).toBe('# 大纲\n\n1. 第一个标签页的新版本。\n');

      // Reload keeps the second tab's unsaved text; saving again applies it on the latest revision.
      await second.getByTestId('conflict-reload').click();
      await expect.poll(() => second.getByTestId('revision').textContent()).toContain('rev 3');
      expect(await outline(second).inputValue()).toBe('# 大纲\n\n1. 第二个标签页的修改。\n');
      await second.getByTestId('save-outline.md').click();
      await expect.poll(() => second.getByTestId('revision').textContent()).toContain('rev 4');
      expect((await fx.demo.workspaces.read('night-market')).files['outline.md']).toBe('# 大纲\n\n1. 第二个标签页的修改。\n');
    } finally {
      await second.close();
    }
  });

  it('plays a turn with the story enabled and shows stage progress and the reply', async () => {
    await page.getByTestId('enable-night-market').click();
    await page.getByTestId('enabled-badge').waitFor();
    await expect.poll(() => page.getByTestId('chat-story').textContent()).toBe('night-market');
    await page.getByTestId('chat-input').fill('你好，莉娅。夜市今晚人多吗？');
    await page.getByTestId('chat-send').click();
    const reply = page.getByTestId('reply').last();
    await reply.waitFor();
    expect(((await reply.textContent()) ?? '').length).toBeGreaterThan(4);
    const stages = page.getByTestId('stage-progress');
    await expect.poll(() => stages.locator('[data-stage="story/editor"][data-status="done"]').count()).toBe(1);
    expect(await stages.locator('[data-stage="story/director"]').count()).toBe(1);
    const messages = await fx.demo.storage.sessions.read('browser-1');
    const committed = messages.filter((e) => e.type === 'kernel/turn-committed');
    expect(committed).toHaveLength(1);
    const committedReply = (committed[0]?.data as { reply?: string } | undefined)?.reply ?? '<no committed reply>';
    expect(await reply.textContent()).toContain(committedReply);
  });

  it('states a lasting requirement and sees the DIO view update', async () => {
    await page.getByTestId('chat-input').fill('从现在起莉娅都用短句回答，少用比喻。');
    await page.getByTestId('chat-send').click();
    await expect.poll(() => page.getByTestId('reply').count()).toBe(2);
    await page.getByRole('tab', { name: /DIO/ }).click();
    const status = page.getByTestId('dio-task-status');
    await expect.poll(() => status.getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    const prompt = page.getByTestId('dio-active-prompt');
    await prompt.waitFor();
    expect(await prompt.textContent()).toContain('+ 从现在起莉娅都用短句回答，少用比喻。');
    expect(await page.getByTestId('dio-hash').textContent()).toMatch(/^[0-9a-f]{64}$/);
    const requirements = page.getByTestId('dio-requirements');
    expect(await requirements.textContent()).toContain('从现在起莉娅都用短句回答，少用比喻。');

    await requirements.getByRole('button', { name: /撤销/ }).click();
    await page.getByTestId('dio-requirements').waitFor({ state: 'detached' });
    await expect.poll(async () => (await page.getByTestId('dio-active-prompt').textContent()) ?? '').toContain('− 从现在起莉娅都用短句回答，少用比喻。');
  });
});
