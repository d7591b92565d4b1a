import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { LIA_CHARACTER_PROMPT } from '../src/example/lia-character.js';
import { startFakeOpenAi } from './support/fake-openai.js';
import { capturedContext, runCliCaptured, tempDataDir } from './helpers.js';
import { CORPUS_DIR } from './support/corpus.js';

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
  return cliIn({}, '--data', dir, ...args);
}

/** Runs the CLI with an environment and no implicit `--data`. */
const cliIn = runCliCaptured;

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

  it('a turn that states a lasting requirement ends the session with the DIO task\'s terminal event', async () => {
    const { code } = await cli('turn', '--session', 'cli-dio', '--text', '从现在起莉娅都用短句回答，少用比喻。', '--json');
    expect(code).toBe(0);
    const exported = (await cli('session', 'export', 'cli-dio')).text.split('\n').map((line) => JSON.parse(line) as { type: string; data: { status?: string } });
    const dio = exported.filter((event) => event.type.startsWith('dio/') && !event.type.startsWith('dio/active-prompt'));
    expect(dio.map((event) => event.type)).toEqual(['dio/scheduled', 'dio/task-terminal']);
    expect(dio[1]?.data.status).toBe('succeeded');
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
    const branchRun = await cli('session', 'branch', 'talk', '--at', firstCommit?.id ?? '', '--to', 'talk-branch');
    expect(branchRun.code).toBe(0);
    // No requirement was stated before the branch point: nothing to fork, nothing said about DIO.
    expect(branchRun.text).toBe(`branched talk at ${firstCommit?.id} into talk-branch`);
    const branched = (await cli('session', 'export', 'talk-branch')).text.split('\n');
    expect(branched.filter((line) => line.includes('kernel/turn-committed'))).toHaveLength(1);
    const out = join(dir, 'talk.jsonl');
    expect((await cli('session', 'export', 'talk', '--out', out)).text).toContain(`to ${out}`);
  });

  it('branches from an exchange (--from-turn) as the chat shows it now, and wants exactly one of --at and --from-turn', async () => {
    for (const text of ['one', 'two', 'three']) await cli('turn', '--session', 'talk3', '--text', text);
    const commits = (await cli('session', 'export', 'talk3')).text
      .split('\n')
      .map((line) => JSON.parse(line) as { turnId: string; type: string })
      .filter((event) => event.type === 'kernel/turn-committed');
    const second = commits[1]?.turnId ?? '';
    const run = await cli('session', 'branch', 'talk3', '--from-turn', second, '--to', 'talk3-b');
    expect(run.code).toBe(0);
    expect(run.text).toBe(`branched talk3 from turn ${second} into talk3-b (2 exchanges)`);
    const copied = (await cli('session', 'export', 'talk3-b')).text.split('\n').map((line) => JSON.parse(line) as { type: string; data: { input?: string } });
    expect(copied.filter((event) => event.type === 'kernel/turn-committed').map((event) => event.data.input)).toEqual(['one', 'two']);
    const both = await cli('session', 'branch', 'talk3', '--from-turn', second, '--at', 'e1', '--to', 'talk3-c');
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/error \[DEMO_INVALID_OPTION\]: Give either --at EVENT or --from-turn TURN/);
    const neither = await cli('session', 'branch', 'talk3', '--to', 'talk3-c');
    expect(neither.code).toBe(1);
    const missingTo = await cli('session', 'branch', 'talk3', '--at', 'e1');
    expect(missingTo.stderr).toMatch(/--to/);
    expect((await cli('session', 'list')).text.split('\n')).toEqual(['talk3', 'talk3-b']);
  });

  it('a branch keeps the lasting requirements its branch point had (the DIO conversation is forked)', async () => {
    await cli('turn', '--session', 'vow', '--text', '从现在起莉娅都用短句回答，少用比喻。');
    const events = (await cli('session', 'export', 'vow')).text.split('\n').map((line) => JSON.parse(line) as { id: string; type: string });
    expect(events.map((event) => event.type)).toContain('dio/task-terminal');
    const branched = await cli('session', 'branch', 'vow', '--at', events.at(-1)?.id ?? '', '--to', 'vow-branch');
    expect(branched.text).toContain('DIO requirements for');
    expect(branched.text).toContain('1 carried over');
    const copy = (await cli('session', 'export', 'vow-branch')).text.split('\n').map((line) => JSON.parse(line) as { type: string; data: { keptRequestIds?: string[] } });
    expect(copy.at(-1)).toMatchObject({ type: 'dio/conversation-forked', data: { keptRequestIds: [expect.stringMatching(/:dio$/)] } });
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

  it('prints help for every command, nested ones included', async () => {
    const cases: Array<[string[], string]> = [
      [['--help'], 'Usage: troupe-demo [options] [command]'],
      [['serve', '--help'], 'Usage: troupe-demo serve'],
      [['showcase', '--help'], 'Usage: troupe-demo showcase'],
      [['turn', '--help'], 'Usage: troupe-demo turn'],
      [['story', '--help'], 'Usage: troupe-demo story'],
      [['story', 'create', '--help'], 'Usage: troupe-demo story create'],
      [['story', 'import-card', '--help'], 'Usage: troupe-demo story import-card'],
      [['session', '--help'], 'Usage: troupe-demo session'],
      [['session', 'export', '--help'], 'Usage: troupe-demo session export'],
    ];
    for (const [args, usage] of cases) {
      const { code, text } = await cli(...args);
      expect({ args, code }).toEqual({ args, code: 0 });
      expect(text).toContain(usage);
    }
    // Help only prints: nothing was composed, so no data was written.
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps its data in TROUPE_HOME when --data is not given', async () => {
    const created = await cliIn({ TROUPE_HOME: dir }, 'story', 'create', 'home-story', '--name', 'Home');
    expect(created.code).toBe(0);
    expect(await readdir(join(dir, 'story-workspaces'))).toEqual(['home-story']);
    expect((await cliIn({ TROUPE_HOME: dir }, 'story', 'list')).text).toBe('home-story');
  });

  it('plays a turn against the model server TROUPE_MODEL_BASE_URL and TROUPE_MODEL point at', async () => {
    const fake = await startFakeOpenAi('（灯光摇晃）雾很浓，旅人。');
    try {
      const env = { TROUPE_HOME: dir, TROUPE_MODEL_BASE_URL: fake.baseUrl, TROUPE_MODEL: 'fake-rp-model', TROUPE_MODEL_API_KEY: 'test-key' };
      const played = await cliIn(env, 'turn', '--session', 'remote-1', '--text', '你好，莉娅。');
      expect(played.stderr).toBe('');
      expect(played.code).toBe(0);
      expect(played.text).toContain('Lia: （灯光摇晃）雾很浓，旅人。');
      // The actor's request reached the fake server: its model, the character prompt and the player's words.
      const actor = fake.requests.find((request) => request.body.messages?.some((message) => message.content === LIA_CHARACTER_PROMPT));
      expect(actor?.body.model).toBe('fake-rp-model');
      expect(actor?.body.messages?.at(-1)).toEqual({ role: 'user', content: '你好，莉娅。' });
    } finally {
      await fake.close();
    }
  });

  it('plays a turn with --story, which enables the workspace for the session first', async () => {
    expect((await cli('story', 'create', 'tale', '--name', 'Tale')).code).toBe(0);
    const { code, text } = await cli('turn', '--session', 'storied', '--text', '钟声从哪里来？', '--story', 'tale', '--json');
    expect(code).toBe(0);
    const types = (JSON.parse(text) as { events: Array<{ type: string }> }).events.map((event) => event.type);
    expect(types).toContain('agent-rp/story-draft-prepared');
    expect((await cli('session', 'list')).text).toBe('storied');
  });

  it('refuses --story for a workspace that does not exist, with a code and nothing written', async () => {
    const { code, stderr } = await cli('turn', '--session', 'lost', '--text', 'hi', '--story', 'nowhere');
    expect(code).toBe(1);
    expect(stderr).toMatch(/^error \[STORY_WORKSPACE_NOT_FOUND\]: /);
    expect(stderr).not.toContain('    at ');
    expect((await cli('session', 'list')).text).toContain('no sessions');
  });

  it('derives an id for a Chinese name, puts names into persona.md, and refuses an invalid --character-id', async () => {
    await cli('story', 'create', 'cards', '--name', 'Cards');
    const card = join(dir, 'nameless.json');
    await writeFile(card, JSON.stringify({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: '无名', description: '{{char}}在等{{user}}。', personality: '', scenario: '', first_mes: '', mes_example: '' } }));
    const derived = await cli('story', 'import-card', 'cards', card);
    expect(derived.code).toBe(0);
    const id = /as "(c-[0-9a-f]{8})"/.exec(derived.text)?.[1];
    expect(id).toBeDefined();
    const persona = await readFile(join(dir, 'story-workspaces', 'cards', 'characters', id ?? '', 'persona.md'), 'utf8');
    expect(persona).toContain('无名在等User。');
    const given = await cli('story', 'import-card', 'cards', card, '--character-id', 'Bad Id');
    expect(given.code).toBe(1);
    expect(given.stderr).toMatch(/^error \[DEMO_INVALID_CARD_ID\]: /);
    expect(given.stderr).not.toContain('    at ');
    expect((await cli('story', 'import-card', 'cards', card, '--character-id', 'nameless')).code).toBe(0);
  });

  it("says what of a lorebook-only card a story character leaves out (the real 爱 card: empty description, 27 book entries)", async () => {
    await cli('story', 'create', 'lore-cards', '--name', 'Lore cards');
    const imported = await cli('story', 'import-card', 'lore-cards', join(CORPUS_DIR, 'cards', 'c17-zh-ai-v3.json'));
    expect(imported.code).toBe(0);
    expect(imported.text).toContain('note: the card has no description, personality or scenario: persona.md holds only the name (this card keeps its character in its lorebook)');
    expect(imported.text).toContain("note: the card's lorebook (27 entries) is not part of a story character");
    // A card whose character is all in its description gets no such note.
    const plain = join(dir, 'plain.json');
    await writeFile(plain, JSON.stringify({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Plain', description: 'A keeper.' } }));
    expect((await cli('story', 'import-card', 'lore-cards', plain)).text).not.toContain('note:');
  });

  it('deletes a workspace whose manifest.json a hand edit broke', async () => {
    await cli('story', 'create', 'broken', '--name', 'Broken');
    await writeFile(join(dir, 'story-workspaces', 'broken', 'manifest.json'), '{ this is not json');
    expect((await cli('story', 'show', 'broken')).stderr).toContain('STORY_MANIFEST_INVALID');
    const deleted = await cli('story', 'delete', 'broken');
    expect(deleted.stderr).toBe('');
    expect(deleted.text).toBe('deleted broken');
    expect((await cli('story', 'list')).text).toContain('no story workspaces');
  });

  it('refuses DIO_URL without DIO_TOKEN with DEMO_CONFIG_INVALID', async () => {
    const { code, stderr } = await cliIn({ TROUPE_HOME: dir, DIO_URL: 'http://127.0.0.1:9' }, 'story', 'list');
    expect(code).toBe(1);
    expect(stderr).toMatch(/^error \[DEMO_CONFIG_INVALID\]: DIO_URL is set but DIO_TOKEN is not/);
  });
});

describe('demo CLI serve', () => {
  it('serves the web app until stopped, then shuts down cleanly', async () => {
    const context = capturedContext();
    await cli('story', 'create', 'served', '--name', '服务');
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
    expect(stories).toEqual({ stories: [{ id: 'served', name: '服务', revision: 1, characters: 0, sections: 0, sources: 0 }] });
    expect(context.text()).toContain(`data: ${dir}`);
  });

  it('rejects an invalid port', async () => {
    const context = capturedContext();
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await runCli(['--data', dir, 'serve', '--port', 'eighty'], context)).toBe(1);
  });
});
