import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ChatModel, silentLogger } from '@troupe/kernel';
import { ScriptedChatModel } from '@troupe/kernel/testing';
import { offlineModel } from '@troupe/model-offline';
import { openAICompatibleModel } from '@troupe/model-openai-compatible';
import { afterEach, describe, expect, it } from 'vitest';
import { compilePrompt, mergePrompt } from '../src/compiler.js';

const BASE = '你是莉娅，灯塔旅店的老板。';
const REQUIREMENTS = ['从现在起莉娅都用短句回答，少用比喻。', '说话时偶尔提到海浪。'];
const input = (signal = new AbortController().signal) => ({ base: BASE, characterName: '莉娅', requirements: REQUIREMENTS, signal, sessionId: 'dio_c1', turnId: 't1:dio' });

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback OpenAI-compatible server answering chat completions with `answer()` (or a status). */
async function openAIServer(answer: () => { status: number; content?: string }): Promise<{ url: string; requests: unknown[] }> {
  const requests: unknown[] = [];
  server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
    requests.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    const { status, content } = answer();
    const body =
      status === 200
        ? { id: 'c1', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }
        : { error: { message: 'boom', type: 'server_error' } };
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

describe('compilation', () => {
  it('the deterministic merge is the complete prompt: the base, then every requirement in order', () => {
    const merged = mergePrompt(`${BASE}\n\n`, REQUIREMENTS);
    expect(merged).toBe(`${BASE}\n\n## 长期要求 / Lasting requirements\n- ${REQUIREMENTS[0]}\n- ${REQUIREMENTS[1]}`);
    expect(mergePrompt(BASE, [])).toBe(BASE);
    expect(mergePrompt(BASE, ['a\n  b'])).toContain('- a b');
  });

  it('with the offline model the result is the deterministic merge, sent with stage dio/compile', async () => {
    const model = offlineModel();
    const result = await compilePrompt(model, input(), silentLogger);
    expect(result.compiledPrompt).toBe(mergePrompt(BASE, REQUIREMENTS));
    const scripted = new ScriptedChatModel();
    await compilePrompt(scripted, input(), silentLogger);
    expect(scripted.calls[0]?.meta.stage).toBe('dio/compile');
  });

  it.each([
    ['an empty answer', ''],
    ['an answer without the character name', 'Answer briefly.'],
    ['an overlong answer', `莉娅${'x'.repeat(100_001)}`],
  ])('falls back to the merge on %s', async (_name, text) => {
    const model = new ScriptedChatModel({ byStage: { 'dio/compile': [text] } });
    const result = await compilePrompt(model, input(), silentLogger);
    expect(result).toEqual({ compiledPrompt: mergePrompt(BASE, REQUIREMENTS), compiledBy: 'merge' });
  });

  it('uses a valid model rewrite', async () => {
    const rewrite = '你是莉娅，灯塔旅店的老板。回答用短句，少用比喻，偶尔提到海浪。';
    const result = await compilePrompt(new ScriptedChatModel({ byStage: { 'dio/compile': [rewrite] } }), input(), silentLogger);
    expect(result).toEqual({ compiledPrompt: rewrite, compiledBy: 'model' });
  });

  it('a failing model falls back; an aborted compilation rejects with the abort reason and produces nothing', async () => {
    const failing: ChatModel = { id: 'failing', generate: async () => Promise.reject(new Error('down')) };
    expect((await compilePrompt(failing, input(), silentLogger)).compiledBy).toBe('merge');
    const controller = new AbortController();
    const reason = new DOMException('stop', 'AbortError');
    const hanging: ChatModel = {
      id: 'hanging',
      generate: (request) => new Promise((_resolve, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true })),
    };
    const pending = compilePrompt(hanging, input(controller.signal), silentLogger);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('through a real OpenAI-compatible adapter over loopback: valid output used, invalid output and 500 fall back', async () => {
    const answers = [
      { status: 200, content: '你是莉娅。回答用短句。' },
      { status: 200, content: 'I am a helpful assistant.' },
      { status: 500 },
    ];
    let index = 0;
    const mock = await openAIServer(() => answers[Math.min(index++, answers.length - 1)] as { status: number; content?: string });
    const model = openAICompatibleModel({ baseURL: mock.url, model: 'm', apiKey: 'k', maxRetries: 0, timeoutMs: 5_000 }, {});
    expect(await compilePrompt(model, input(), silentLogger)).toEqual({ compiledPrompt: '你是莉娅。回答用短句。', compiledBy: 'model' });
    expect((await compilePrompt(model, input(), silentLogger)).compiledBy).toBe('merge');
    expect((await compilePrompt(model, input(), silentLogger)).compiledBy).toBe('merge');
    expect(mock.requests).toHaveLength(3);
    expect(JSON.stringify(mock.requests[0])).toContain(REQUIREMENTS[0]);
  });
});
