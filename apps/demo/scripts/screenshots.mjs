// Takes screenshots of the web app's main views for the README (docs/screenshots/*.png).
// Needs the built demo and web UI (`pnpm --filter @troupe/demo build`) and /usr/bin/chromium.
// Usage: node apps/demo/scripts/screenshots.mjs [output-dir]
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import 'reflect-metadata';
import { embedCharacterCard } from '@troupe/plugin-actor-assembler';
import { chromium } from 'playwright-core';
import { placeholderPng } from '../dist/library/avatar-image.js';
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

  // The character library, a chat with a library character, presets and model settings. The cards
  // and the preset are made here (no third-party pictures in the repository).
  const mira = {
    spec: 'chara_card_v3',
    spec_version: '3.0',
    data: {
      name: 'Mira',
      description: '{{char}} is the cartographer of Fog Harbor. She maps the fog banks for the pilots and keeps a drawer of maps nobody asked for.',
      personality: 'precise, dry humour, kind underneath',
      scenario: 'The map room above the harbour office, late evening.',
      first_mes: '*{{char}} looks up from a half-inked chart.* You must be {{user}}. Mind the wet ink.',
      alternate_greetings: ['*The lamp flickers as the door opens.* Late again, {{user}}? The fog will not wait for you.', '*{{char}} rolls up a map and ties it with string.* Sit. Tell me where you need to go.'],
      tags: ['original', 'harbor'],
      creator: 'Troupe demo',
    },
  };
  const shen = {
    spec: 'chara_card_v2',
    spec_version: 2,
    data: { name: '沈青', description: '{{char}}是雾港渡口的船夫，沉默寡言，熟悉每一条暗流。', personality: '沉稳', scenario: '夜里的渡口。', first_mes: '*{{char}}把船靠岸。*上来吧，{{user}}。', creator_notes: null },
  };
  const upload = async (path, name, bytes) => {
    const response = await fetch(`${server.url}${path}?fileName=${encodeURIComponent(name)}`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: bytes });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  await upload('/api/characters', 'mira.png', embedCharacterCard(placeholderPng('Mira'), mira));
  await upload('/api/characters', 'shen.json', Buffer.from(JSON.stringify(shen)));
  const stPreset = {
    name: 'Tavern-style preset',
    temperature: 0.9,
    prompts: [
      { identifier: 'main', name: 'Main Prompt', system_prompt: true, role: 'system', content: "Write {{char}}'s next reply in a fictional chat between {{char}} and {{user}}." },
      { identifier: 'charDescription', name: 'Char Description', system_prompt: true, marker: true },
      { identifier: 'chatHistory', name: 'Chat History', system_prompt: true, marker: true },
      { identifier: 'nsfw', name: 'Auxiliary Prompt', system_prompt: true, role: 'system', content: '', injection_position: 1, injection_depth: 4 },
    ],
    prompt_order: [{ character_id: 100001, order: [{ identifier: 'main', enabled: true }, { identifier: 'charDescription', enabled: true }, { identifier: 'chatHistory', enabled: true }] }],
  };
  await upload('/api/presets', 'Tavern-style.json', Buffer.from(JSON.stringify(stPreset)));

  const library = await context.newPage();
  library.on('dialog', (dialog) => void dialog.accept());
  await library.goto(`${server.url}/#session=library-tour`);
  await library.getByTestId('view-characters').click();
  await library.getByTestId('character-list').locator('li', { hasText: 'Mira' }).getByRole('button').click();
  await library.getByTestId('character-editor').waitFor();
  await shoot(library, 'characters');

  await library.getByTestId('start-chat').click();
  await library.getByTestId('chat-header').waitFor();
  await library.getByTestId('swipe-next').click();
  await library.getByTestId('swipe-position').filter({ hasText: '2/3' }).waitFor();
  await say(library, 'Evening, Mira. Who asked you for these maps?', 1);
  await say(library, '*sets a wet lantern on the table* Is the fog bad tonight?', 2);
  await shoot(library, 'character-chat');

  await library.getByTestId('view-presets').click();
  await library.getByTestId('preset-list').locator('li', { hasText: 'Tavern-style' }).getByRole('button').click();
  await library.getByTestId('preset-dio').filter({ hasText: 'DIO cannot' }).waitFor();
  await shoot(library, 'presets');

  // A stand-in OpenAI-compatible server on loopback, so "Test connection" has models to list.
  const models = createServer((req, res) => {
    res.writeHead(req.url === '/v1/models' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: 'qwen2.5:7b-instruct' }, { id: 'llama3.1:8b' }] }));
  });
  await new Promise((resolve) => models.listen(0, '127.0.0.1', resolve));
  try {
    await library.getByTestId('view-model').click();
    await library.getByTestId('model-base-url').fill(`http://127.0.0.1:${models.address().port}/v1`);
    await library.getByTestId('test-connection').click();
    await library.getByTestId('model-list').waitFor();
    await library.getByTestId('model-context-size').fill('16384');
    await library.getByTestId('model-max-tokens').fill('400');
    await shoot(library, 'model-settings');
  } finally {
    models.close();
  }
} finally {
  await context.close();
  await server.close();
  await demo.close();
  await rm(profile, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
}
