// Takes screenshots of the web app's main views for the README (docs/screenshots/*.png).
// Needs the built demo and web UI (`pnpm --filter @troupe/demo build`) and /usr/bin/chromium.
// Usage: node apps/demo/scripts/screenshots.mjs [output-dir]
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import 'reflect-metadata';
import { chromium } from 'playwright-core';
import { composeDemo } from '../dist/compose.js';
import { ensureExampleStory } from '../dist/example/create-example-story.js';
import { startWebServer } from '../dist/server/index.js';

const outDir = resolve(process.argv[2] ?? fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url)));
const dataDir = await mkdtemp(join(tmpdir(), 'troupe-screenshots-'));
const profile = await mkdtemp(join(tmpdir(), 'troupe-chromium-'));
const demo = await composeDemo({ dataDir, env: {} });
const server = await startWebServer(demo, { port: 0 });
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1360, height: 860 },
  locale: 'zh-CN',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

async function shoot(page, name) {
  const path = join(outDir, `${name}.png`);
  await page.screenshot({ path });
  console.log(`wrote ${path}`);
}

async function say(page, text, replies) {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-send').click();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="reply"]').length >= n, replies);
}

try {
  await mkdir(outDir, { recursive: true });
  await ensureExampleStory(demo.workspaces);
  const page = await context.newPage();
  await page.goto(`${server.url}/#session=fog-harbor-tour`);
  await page.getByTestId('enable-fog-harbor').click();
  await page.getByTestId('enabled-badge').waitFor();
  await say(page, '你好，莉娅。今晚的雾真大，午夜的钟声又响了吗？', 1);
  await page.locator('[data-stage="story/editor"][data-status="done"]').waitFor();
  await shoot(page, 'chat');

  await page.getByTestId('tab-characters').click();
  await page.getByTestId('story-editor').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await shoot(page, 'story-panel');

  // A stale save from a second tab: the conflict message, nothing overwritten.
  const other = await context.newPage();
  await other.goto(`${server.url}/#session=fog-harbor-tour`);
  await page.getByTestId('tab-outline').click();
  await page.getByTestId('file-outline.md').fill(`${await page.getByTestId('file-outline.md').inputValue()}5. 新增：Old Ren 决定说出那一夜的事。\n`);
  await page.getByTestId('save-outline.md').click();
  await page.getByTestId('notice').waitFor();
  await other.getByTestId('file-outline.md').fill('# 另一个标签页的旧版本\n');
  await other.getByTestId('save-outline.md').click();
  await other.getByTestId('conflict').waitFor();
  await shoot(other, 'story-conflict');
  await other.close();

  await say(page, '从现在起莉娅都用短句回答，少用比喻。', 2);
  await page.getByRole('tab', { name: /DIO/ }).click();
  await page.locator('[data-testid="dio-task-status"][data-status="succeeded"]').waitFor({ timeout: 30_000 });
  await say(page, '钟楼的钥匙在谁手里？', 3);
  await page.getByTestId('dio-last-lookup').filter({ hasText: 'applied' }).waitFor();
  await shoot(page, 'dio');
} finally {
  await context.close();
  await server.close();
  await demo.close();
  await rm(profile, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
}
