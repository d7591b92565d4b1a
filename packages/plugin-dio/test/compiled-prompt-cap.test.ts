import { createHash } from 'node:crypto';
import { createHarness } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { DioClient, dioPlugin, MAX_COMPILED_PROMPT_CHARS } from '../src/index.js';
import { type LoopbackServer, startLoopbackServer } from './helpers/loopback-server.js';

// A compiled prompt longer than the reference service can produce (100 000 characters) is not a
// character prompt: the lookup refuses it and the turn plays the normal character prompt.

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const promptOf = (characters: number) => '长'.repeat(characters);
const serve = (compiled: string) =>
  startLoopbackServer(() => ({ status: 200, json: { versionId: 'v1', sourceVersionId: 's1', changeset: { added: [], removed: [] }, compiledPrompt: compiled, compiledPromptSha256: sha(compiled) } }));
const query = { userId: 'u1', rpConversationId: 's1', targetPromptId: 'lia' };

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the compiled prompt cap', () => {
  it('is the reference service’s 100 000 characters', () => {
    expect(MAX_COMPILED_PROMPT_CHARS).toBe(100_000);
  });

  it('accepts a prompt of exactly the cap', async () => {
    server = await serve(promptOf(MAX_COMPILED_PROMPT_CHARS));
    const prompt = await new DioClient(server.url, 5_000).activePrompt(query);
    expect(prompt?.compiledPrompt.length).toBe(MAX_COMPILED_PROMPT_CHARS);
  });

  it('refuses a longer one with DIO_INVALID_RESPONSE naming the cap; the turn degrades the lookup and plays on', async () => {
    server = await serve(promptOf(200_000));
    const error = await new DioClient(server.url, 5_000).activePrompt(query).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'DIO_INVALID_RESPONSE' });
    expect((error as Error).message).toContain('200000 characters');
    expect((error as Error).message).toContain('100000');

    const model = new ScriptedChatModel({ byStage: { actor: ['嗯。'] } });
    const harness = await createHarness({ plugins: [dioPlugin({ baseUrl: server.url, targetPromptId: 'lia' })], model, sessionLog: new MemorySessionLog() });
    const result = await harness.runTurn({ sessionId: 's1', text: '你好。', userId: 'u1' });
    expect(result.reply).toBe('嗯。');
    const degraded = result.events.find((event) => event.type === 'dio/active-prompt-degraded');
    expect(degraded?.data).toMatchObject({ code: 'DIO_INVALID_RESPONSE' });
    expect(JSON.stringify(model.callsFor('actor')[0]?.messages)).not.toContain('长长长长');
    await harness.close();
  });
});
