import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { composeDemo } from '../src/compose.js';
import { CORPUS_DIR } from './support/corpus.js';
import { capturedContext, tempDataDir } from './helpers.js';

let dir = '';
let cleanup: () => Promise<void> = async () => {};
beforeEach(async () => {
  ({ dir, cleanup } = await tempDataDir());
});
afterEach(async () => {
  await cleanup();
});

/** Runs the CLI with lines on its input (as if typed, or piped). */
async function cli(lines: readonly string[], ...args: string[]): Promise<{ code: number; text: string; stderr: string; writes: number }> {
  const context = capturedContext({}, Readable.from(lines.map((line) => `${line}\n`)));
  let writes = 0;
  const write = context.output.write;
  context.output.write = (text: string) => {
    writes += 1;
    write(text);
  };
  const errors: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    errors.push(String(chunk));
    return true;
  });
  const code = await runCli(['--data', dir, ...args], context);
  vi.restoreAllMocks();
  return { code, text: context.text(), stderr: errors.join(''), writes };
}

const card = {
  spec: 'chara_card_v2',
  spec_version: '2.0',
  data: { name: 'Vess', description: '{{char}} keeps the ledger for {{user}}.', first_mes: '*{{char}} looks up.* Evening, {{user}}.', alternate_greetings: ['*Rain.* Back again, {{user}}?'] },
};

describe('chat command', () => {
  it('chats with a card file: greeting, streamed replies, /regenerate, /swipe and /quit', async () => {
    const file = join(dir, 'vess.json');
    await writeFile(file, JSON.stringify(card));
    const run = await cli(['Who are you?', '/regenerate', '/swipe', '/nonsense', '/quit', 'never read'], 'chat', '--card', file);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.text.split('\n');
    expect(lines).toContain('Vess: *Vess looks up.* Evening, User.   [greeting 1/2]');
    const replies = lines.filter((line) => line.startsWith('Vess: ') && !line.includes('[greeting'));
    expect(replies).toHaveLength(2);
    expect(replies[0]).toContain('Vess');
    // Streamed: the reply arrived in several pieces.
    expect(run.writes).toBeGreaterThan(4);
    expect(lines).toContain('Vess: *Rain.* Back again, User?   [greeting 2/2]');
    expect(run.text).toContain('Unknown command /nonsense');
    expect(run.text).not.toContain('never read');
    const chatId = /Chat (chat-[0-9a-f]+):/.exec(run.text)?.[1] ?? '';
    expect(lines.at(-1)).toBe(`Bye. Continue later with: chat --session ${chatId}`);

    // /regenerate wrote step 1 of the same turn; the chat remembers the chosen greeting.
    const demo = await composeDemo({ dataDir: dir, env: {} });
    try {
      const committed = (await demo.storage.sessions.read(chatId)).filter((event) => event.type === 'kernel/turn-committed');
      expect(committed.map((event) => event.step)).toEqual([0, 1]);
      expect(new Set(committed.map((event) => event.turnId)).size).toBe(1);
      expect((await demo.library.chats.get(chatId)).greetingIndex).toBe(1);
      // Running chat --card again reuses the library character instead of importing a copy.
      expect((await demo.library.characters.list()).characters).toHaveLength(1);
    } finally {
      await demo.close();
    }
    const again = await cli(['/q'], 'chat', '--card', file);
    expect(again.code).toBe(0);
    const continued = await cli(['Still there?', '/q'], 'chat', '--session', chatId);
    expect(continued.text).toContain('[greeting 2/2]');
  });

  it('session branch of a chat makes a chat of its own: chat --session plays the same character in the branch', async () => {
    const file = join(dir, 'vess.json');
    await writeFile(file, JSON.stringify(card));
    const run = await cli(['Who are you?', 'And the ledger?', '/quit'], 'chat', '--card', file);
    const chatId = /Chat (chat-[0-9a-f]+):/.exec(run.text)?.[1] ?? '';
    const demo = await composeDemo({ dataDir: dir, env: {} });
    let at = '';
    try {
      at = (await demo.storage.sessions.read(chatId)).find((event) => event.type === 'kernel/turn-committed')?.id ?? '';
    } finally {
      await demo.close();
    }
    const branched = await cli([], 'session', 'branch', chatId, '--at', at, '--to', 'vess-branch');
    expect(branched.code).toBe(0);
    expect(branched.text).toContain('chat vess-branch: Vess');
    const played = await cli(['Still keeping it?', '/q'], 'chat', '--session', 'vess-branch');
    expect(played.stderr).toBe('');
    expect(played.text).toMatch(/^Chat vess-branch: Vess/m);
  });

  it('chats with a library character and a CHARX card, and explains a missing choice', async () => {
    const charx = join(CORPUS_DIR, 'cards', 'c23-fixture-tavernkit.charx');
    const first = await cli(['Hello!', '/q'], 'chat', '--card', charx);
    expect(first.code).toBe(0);
    expect(first.text).toMatch(/^TestChar: .*TestChar/m);
    const demo = await composeDemo({ dataDir: dir, env: {} });
    const id = (await demo.library.characters.list()).characters[0]?.id ?? '';
    await demo.close();
    const byId = await cli(['Hello again.', '/q'], 'chat', '--character', id);
    expect(byId.code).toBe(0);
    const none = await cli([], 'chat');
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^error \[DEMO_INVALID_OPTION\]: Choose who to chat with/);
    const missing = await cli([], 'chat', '--character', 'nobody');
    expect(missing.stderr).toMatch(/^error \[LIBRARY_NOT_FOUND\]/);
  });

  it('turn and story import-card accept the same characters', async () => {
    const file = join(dir, 'vess.json');
    await writeFile(file, JSON.stringify(card));
    const turn = await cli([], 'turn', '--session', 'ledger', '--card', file, '--text', 'Why are you here?');
    expect(turn.code).toBe(0);
    expect(turn.text).toMatch(/^Vess: /m);
    const again = await cli([], 'turn', '--session', 'ledger', '--text', 'And now?');
    expect(again.text).toMatch(/^Vess: /m);
    const demo = await composeDemo({ dataDir: dir, env: {} });
    const id = (await demo.library.characters.list()).characters[0]?.id ?? '';
    await demo.close();
    await cli([], 'story', 'create', 'ledger-story', '--name', 'Ledger');
    const added = await cli([], 'story', 'import-card', 'ledger-story', '--character', id);
    expect(added.code).toBe(0);
    expect(added.text).toContain('added Vess as "vess"');
  });
});

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

describe('npm run demo', () => {
  it('prints only the command output on stdout (no npm, pnpm or turbo banner)', () => {
    const result = spawnSync('npm', ['run', 'demo', '--', '--data', dir, 'story', 'list'], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, CI: '1' }, timeout: 240_000 });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('(no story workspaces — `pnpm demo` creates an example)\n');
  }, 300_000);
});
