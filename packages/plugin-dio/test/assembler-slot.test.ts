import { createHash } from 'node:crypto';
import { createHarness } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { actorAssemblerPlugin, defaultPreset } from '@troupe/plugin-actor-assembler';
import { afterEach, describe, expect, it } from 'vitest';
import { dioPlugin } from '../src/index.js';
import { type LoopbackServer, startLoopbackServer } from './helpers/loopback-server.js';

// The assembler is a devDependency for this test only: plugins never import each other in src;
// they meet through `contextKeys.dioCompiledPrompt`, defined by the kernel.
const COMPILED = '你是莉娅，灯塔旅店的老板。\n\n## 长期要求 / Lasting requirements\n- 从现在起莉娅都用短句回答，少用比喻。';
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('dioPlugin + actor assembler', () => {
  it('the verified compiled prompt replaces the whole roleplay prompt; control, history and question keep their places', async () => {
    server = await startLoopbackServer(() => ({
      status: 200,
      json: { versionId: 'v1', sourceVersionId: 's1', changeset: { added: [], removed: [] }, compiledPrompt: COMPILED, compiledPromptSha256: sha(COMPILED) },
    }));
    const model = new ScriptedChatModel({ byStage: { actor: ['嗯。'] } });
    const harness = await createHarness({
      plugins: [
        dioPlugin({ baseUrl: server.url, targetPromptId: 'lia' }),
        actorAssemblerPlugin({ preset: defaultPreset(), char: '莉娅', user: '阿明', fields: { description: 'OLD CHARACTER TEXT' } }),
      ],
      model,
      sessionLog: new MemorySessionLog(),
    });
    const result = await harness.runTurn({ sessionId: 's1', text: '你好。', userId: 'u1' });
    const contents = result.prepared.history.map((message) => message.content);
    expect(contents[1]).toBe(COMPILED);
    expect(result.prepared.history[1]?.role).toBe('system');
    expect(contents.at(-1)).toBe('你好。');
    expect(contents.join('\n')).not.toContain('OLD CHARACTER TEXT');
    expect(result.events.map((event) => event.type)).toEqual(expect.arrayContaining(['dio/active-prompt-applied', 'actor-assembler/dio-applied']));
    expect(model.callsFor('actor')[0]?.messages).toEqual(result.prepared.history);
    await harness.close();
  });
});
