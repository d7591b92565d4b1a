import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DioServiceProcess, startDioServiceProcess } from '../src/dio-service-process.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../src/fake-openai-server.js';
import { buildAndPack } from '../src/pack-tarballs.js';
import { readmeExample } from '../src/readme-example.js';
import { createScratchProject, type ScratchProject } from '../src/scratch-project.js';
import { WORKSPACE_ROOT } from '../src/workspace.js';

// Which tarballs each composition installs — and so the only @troupe packages it can import.
const COMPOSITIONS = {
  assembler: ['@troupe/kernel', '@troupe/model-offline', '@troupe/plugin-actor-assembler'],
  dio: ['@troupe/kernel', '@troupe/model-offline', '@troupe/plugin-actor-assembler', '@troupe/plugin-dio'],
  story: ['@troupe/kernel', '@troupe/model-offline', '@troupe/plugin-actor-assembler', '@troupe/plugin-story', '@troupe/storage-fs'],
  lorebook: ['@troupe/kernel', '@troupe/model-offline', '@troupe/plugin-actor-assembler', '@troupe/plugin-lorebook'],
  all: [
    '@troupe/kernel',
    '@troupe/model-offline',
    '@troupe/model-openai-compatible',
    '@troupe/plugin-actor-assembler',
    '@troupe/plugin-dio',
    '@troupe/plugin-lorebook',
    '@troupe/plugin-story',
    '@troupe/storage-fs',
  ],
} as const;
type Composition = keyof typeof COMPOSITIONS;

// Base prompt the DIO service compiles requirements into (registered with PUT before the turns).
const LIA_BASE_PROMPT = '你是莉娅，一位住在海边灯塔里的旅店老板。';
const FAKE_REPLY = 'Lin Mo: the letter came from the harbour master.';

let workDir: string;
let dio: DioServiceProcess | undefined;
let openai: FakeOpenAIServer | undefined;
const projects = new Map<Composition, ScratchProject>();

function project(name: Composition): ScratchProject {
  const found = projects.get(name);
  if (!found) throw new Error(`composition ${name} was not installed`);
  return found;
}

function dioEnv(): Record<string, string> {
  if (!dio) throw new Error('the DIO service did not start');
  return { DIO_URL: dio.url, DIO_TOKEN: dio.userToken, DIO_USER_ID: dio.userId };
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'troupe-compositions-'));
  const tarballDir = join(workDir, 'tarballs');
  await mkdir(tarballDir);
  const tarballs = await buildAndPack(tarballDir);
  const servicePromise = startDioServiceProcess(join(workDir, 'dio-data'));
  const installs = Object.entries(COMPOSITIONS).map(async ([name, packages]) => {
    const files = packages.map((pkg) => {
      const file = tarballs.get(pkg);
      if (!file) throw new Error(`no tarball for ${pkg}`);
      return file;
    });
    projects.set(name as Composition, await createScratchProject(join(workDir, name), files));
  });
  [dio] = await Promise.all([servicePromise, ...installs]);
  await dio.putPrompt('lia-character', LIA_BASE_PROMPT, '莉娅');
  openai = await startFakeOpenAIServer(FAKE_REPLY);

  await project('assembler').addScript('kernel-readme', readmeExample('@troupe/kernel'));
  await project('assembler').addScript('model-offline-readme', readmeExample('@troupe/model-offline'));
  await project('assembler').addScript('assembler-readme', readmeExample('@troupe/plugin-actor-assembler'));
  await project('dio').addScript('dio-readme', readmeExample('@troupe/plugin-dio'));
  await project('story').addScript('story-readme', readmeExample('@troupe/plugin-story'));
  await project('story').addScript('storage-fs-readme', readmeExample('@troupe/storage-fs'));
  await project('lorebook').addScript('lorebook-readme', readmeExample('@troupe/plugin-lorebook'));
  await project('all').addScript('openai-compatible-readme', readmeExample('@troupe/model-openai-compatible'));
  await project('all').addScript('all-packages', await readFile(join(import.meta.dirname, '../fixtures/all-packages.ts'), 'utf8'));
});

afterAll(async () => {
  dio?.kill();
  await openai?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('scratch projects', () => {
  it.each(Object.keys(COMPOSITIONS) as Composition[])('%s: outside the workspace, with exactly its @troupe packages installed', async (name) => {
    const dir = project(name).dir;
    expect(relative(WORKSPACE_ROOT, dir).startsWith('..')).toBe(true);
    const installed = (await readdir(join(dir, 'node_modules/@troupe'))).map((entry) => `@troupe/${entry}`).sort();
    expect(installed).toEqual([...COMPOSITIONS[name]].sort());
  });

  it.each(Object.keys(COMPOSITIONS) as Composition[])('%s: its scripts type-check against the published .d.ts files', (name) => {
    expect(project(name).typecheck()).toBe('');
  });
});

describe('kernel + assembler (+ offline model)', () => {
  it('the kernel README example runs', async () => {
    const { stdout } = await project('assembler').run('kernel-readme');
    expect(stdout.trim()).toBe('ECHO: HELLO, LIA');
  });

  it('the model-offline README example runs', async () => {
    const { stdout } = await project('assembler').run('model-offline-readme');
    const [direct, reply] = stdout.trim().split('\n');
    expect(direct).toBe('*林默停顿了一下，像在斟酌措辞。*“一个不愿露面的人。不过我心里有数。说下去，我在听。”');
    expect(reply).toContain('Someone who would rather stay unnamed');
  });

  it('the assembler README example runs a turn with the offline model', async () => {
    const { stdout } = await project('assembler').run('assembler-readme');
    const lines = stdout.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'system: Only write Lia’s lines and actions.',
      'system: You are Lia. Answer in short sentences.',
      'user: Will the storm come tonight?',
    ]);
    expect(lines.slice(3).join('\n')).toContain('Lia');
  });
});

describe('+ DIO against the reference service', () => {
  it('the plugin-dio README example: turn 1 schedules, turn 2 carries the compiled prompt', async () => {
    const { stdout } = await project('dio').run('dio-readme', dioEnv());
    const [turn1, turn2, ...prompt] = stdout.trim().split('\n');
    expect(turn1).toBe('turn 1: dio/active-prompt-none, dio/scheduled');
    expect(turn2).toBe('turn 2: dio/active-prompt-applied');
    const systemText = prompt.join('\n');
    expect(systemText).toContain(LIA_BASE_PROMPT);
    expect(systemText).toContain('1. 从现在起莉娅都用短句回答，少用比喻。');
  });
});

describe('+ story + storage-fs', () => {
  it('the plugin-story README example prepares a draft, hands it to the actor and settles history.md', async () => {
    const { stdout } = await project('story').run('story-readme');
    const [draftPrepared, draftInPrompt, ...rest] = stdout.trim().split('\n');
    expect(draftPrepared).toBe('true');
    expect(draftInPrompt).toBe('true');
    expect(rest.join('\n')).toMatch(/story:/);
  });

  it('the storage-fs README example commits, settles and finds an event', async () => {
    const { stdout } = await project('story').run('storage-fs-readme');
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^2 /);
    expect(stdout).toContain('Lia found the key.');
    expect(lines.at(-1)).toBe('story/draft');
  });
});

describe('+ lorebook', () => {
  it('the plugin-lorebook README example selects entries and the assembler places them around the character', async () => {
    const { stdout } = await project('lorebook').run('lorebook-readme');
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('1:constant 0:key');
    expect(lines.slice(2, 5)).toEqual(['Lia keeps the lighthouse on the cliff.', 'Lia is quiet.', 'Storms come from the west and last three days.']);
    expect(lines[5]).toContain('"reason":"key","key":"storm"');
  });
});

describe('all of them', () => {
  it('the model-openai-compatible README example falls back to the offline model', async () => {
    const { stdout } = await project('all').run('openai-compatible-readme');
    expect(stdout.split('\n')[0]).toBe('offline');
  });

  it('the model-openai-compatible README example talks to a loopback OpenAI-compatible server', async () => {
    if (!openai) throw new Error('the fake OpenAI server did not start');
    const before = openai.requests.length;
    const { stdout } = await project('all').run('openai-compatible-readme', { TROUPE_MODEL_BASE_URL: openai.baseURL, TROUPE_MODEL: 'qwen2.5' });
    expect(stdout.split('\n')[0]).toBe('openai-compatible:qwen2.5');
    expect(stdout).toContain(FAKE_REPLY);
    expect(openai.requests.length).toBe(before + 1);
    expect(openai.requests.at(-1)).toMatchObject({ model: 'qwen2.5' });
  });

  it('every package in one harness: story draft and the DIO compiled prompt reach the actor on turn 2', async () => {
    const { stdout } = await project('all').run('all-packages', dioEnv());
    expect(stdout).toContain('model: offline');
    expect(stdout).toMatch(/turn 1 events: .*dio\/scheduled/);
    expect(stdout).toMatch(/turn 2 events: .*dio\/active-prompt-applied.*agent-rp\/story-draft-prepared|turn 2 events: .*agent-rp\/story-draft-prepared.*dio\/active-prompt-applied/);
    expect(stdout).toContain('turn 2 story draft in prompt: true');
    expect(stdout).toContain('turn 2 compiled prompt in prompt: true');
    expect(stdout).toContain('turn 2 world info in prompt: true');
    expect(stdout).toContain('history.md settled: true');
  });
});
