import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { capturedContext, tempDataDir } from './helpers.js';

let dir = '';
let cleanup: () => Promise<void> = async () => {};
beforeEach(async () => {
  ({ dir, cleanup } = await tempDataDir());
});
afterEach(async () => {
  vi.restoreAllMocks();
  await cleanup();
});

async function cli(...args: string[]): Promise<{ code: number; text: string; stderr: string }> {
  const context = capturedContext();
  const errors: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    errors.push(String(chunk));
    return true;
  });
  const code = await runCli(['--data', dir, ...args], context);
  vi.restoreAllMocks();
  return { code, text: context.text(), stderr: errors.join('') };
}

describe('demo CLI', () => {
  it('plays one turn and prints the result as JSON', async () => {
    const { code, text } = await cli('turn', '--session', 'cli-1', '--text', '你好，莉娅。', '--json');
    expect(code).toBe(0);
    const result = JSON.parse(text) as { reply: string; sessionId: string; prepared: { history: Array<{ role: string; content: string }> }; events: Array<{ type: string }> };
    expect(result.sessionId).toBe('cli-1');
    expect(result.reply.length).toBeGreaterThan(0);
    expect(result.prepared.history.at(-1)).toEqual({ role: 'user', content: '你好，莉娅。' });
    expect(result.events.map((event) => event.type)).toContain('kernel/turn-committed');
  });

  it('creates, lists, shows and deletes story workspaces, and imports a character card', async () => {
    expect((await cli('story', 'create', 'harbor', '--name', '雾港')).code).toBe(0);
    expect((await cli('story', 'list')).text).toBe('harbor');
    const card = join(dir, 'marco.json');
    await writeFile(
      card,
      JSON.stringify({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Marco', description: 'A smuggler.', personality: 'Talkative.', scenario: '', first_mes: 'Hello.', mes_example: '' } }),
    );
    const imported = await cli('story', 'import-card', 'harbor', card);
    expect(imported.code).toBe(0);
    expect(imported.text).toContain('added Marco as "marco"');
    const shown = (await cli('story', 'show', 'harbor')).text;
    expect(shown).toContain('--- characters/marco/persona.md');
    expect(shown).toContain('A smuggler.');
    expect((await cli('story', 'delete', 'harbor')).text).toBe('deleted harbor');
    expect((await cli('story', 'list')).text).toContain('no story workspaces');
  });

  it('lists, exports and branches sessions', async () => {
    await cli('turn', '--session', 'talk', '--text', 'one');
    await cli('turn', '--session', 'talk', '--text', 'two');
    expect((await cli('session', 'list')).text).toBe('talk');
    const exported = (await cli('session', 'export', 'talk')).text;
    const events = exported.split('\n').map((line) => JSON.parse(line) as { id: string; type: string });
    const firstCommit = events.find((event) => event.type === 'kernel/turn-committed');
    expect(firstCommit).toBeDefined();
    expect((await cli('session', 'branch', 'talk', '--at', firstCommit?.id ?? '', '--to', 'talk-branch')).code).toBe(0);
    const branched = (await cli('session', 'export', 'talk-branch')).text.split('\n');
    expect(branched.filter((line) => line.includes('kernel/turn-committed'))).toHaveLength(1);
    const out = join(dir, 'talk.jsonl');
    expect((await cli('session', 'export', 'talk', '--out', out)).text).toContain(`to ${out}`);
  });

  it('reports bad input with a code and a non-zero exit, losing nothing', async () => {
    const bad = await cli('story', 'create', '../escape', '--name', 'x');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/error \[STORY_INVALID_ID\]/);
    const badTurn = await cli('turn', '--session', 'Bad Session', '--text', 'hi');
    expect(badTurn.code).toBe(1);
    expect(badTurn.stderr).toContain('KERNEL_TURN_INPUT_INVALID');
    expect((await cli('session', 'list')).text).toContain('no sessions');
  });

  it('prints help for every command', async () => {
    for (const args of [['--help'], ['turn', '--help'], ['story', '--help'], ['session', '--help']]) {
      const { code, text } = await cli(...args);
      expect(code).toBe(0);
      expect(text).toContain('Usage: troupe-demo');
    }
  });
});

describe('demo CLI serve', () => {
  it('serves the web app until stopped, then shuts down cleanly', async () => {
    const context = capturedContext();
    let status = 0;
    let stories: unknown;
    const code = await runCli(['--data', dir, 'serve', '--port', '0'], {
      ...context,
      waitForStop: async () => {
        const url = /web app: (http:\/\/[^\s]+)/.exec(context.text())?.[1];
        const response = await fetch(`${url}/api/stories`);
        status = response.status;
        stories = await response.json();
      },
    });
    expect(code).toBe(0);
    expect(status).toBe(200);
    expect(stories).toBeDefined();
    expect(context.text()).toContain(`data: ${dir}`);
  });

  it('rejects an invalid port', async () => {
    const context = capturedContext();
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await runCli(['--data', dir, 'serve', '--port', 'eighty'], context)).toBe(1);
  });
});
