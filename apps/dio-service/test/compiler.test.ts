import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ChatModel, silentLogger } from '@troupe/kernel';
import { ScriptedChatModel } from '@troupe/kernel/testing';
import { offlineModel } from '@troupe/model-offline';
import { openAICompatibleModel } from '@troupe/model-openai-compatible';
import { afterEach, describe, expect, it } from 'vitest';
import { compilePrompt, mergePrompt } from '../src/compiler.js';
import { PRECEDENCE_NOTE, REQUIREMENTS_HEADING } from '../src/merge-prompt.js';

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
  it('the deterministic merge is the complete prompt: the base, then every requirement in order, with which wins', () => {
    const merged = mergePrompt(`${BASE}\n\n`, REQUIREMENTS);
    expect(merged).toBe(`${BASE}\n\n${REQUIREMENTS_HEADING}\n${PRECEDENCE_NOTE}\n1. ${REQUIREMENTS[0]}\n2. ${REQUIREMENTS[1]}`);
    expect(mergePrompt(BASE, [])).toBe(BASE);
    expect(mergePrompt(BASE, ['a\n  b'])).toContain('1. a b');
  });

  it('the merge never leaves a base trait a requirement reverses next to it without saying which wins', () => {
    const base = '你是莉娅，灯塔旅店的老板。莉娅说话爱用比喻，像诗人一样。她称呼旅人为主人。';
    const merged = mergePrompt(base, ['从现在起莉娅都用短句回答，少用比喻。', '不要再叫我主人。']);
    expect(merged).toContain('莉娅说话爱用比喻，像诗人一样。〔已由长期要求 1 取代 / superseded by lasting requirement 1〕');
    expect(merged).toContain('她称呼旅人为主人。〔已由长期要求 2 取代 / superseded by lasting requirement 2〕');
    expect(merged).toContain('你是莉娅，灯塔旅店的老板。莉娅'); // an unrelated sentence is untouched
    expect(merged.replace(/〔[^〕]*〕/g, '').startsWith(base)).toBe(true); // nothing of the base is lost
    const english = mergePrompt('Lia is an innkeeper. She loves long metaphors.\nShe is kind.', ['Stop using metaphors from now on.']);
    expect(english).toContain('She loves long metaphors.〔已由长期要求 1 取代 / superseded by lasting requirement 1〕\nShe is kind.');
    expect(english.indexOf('She is kind.')).toBeLessThan(english.indexOf(REQUIREMENTS_HEADING));
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
    ['an answer that is only reasoning', '<think>莉娅应该用短句。'],
    ['an answer that drops the base and keeps only the new rule', '莉娅：短句，海浪。'],
  ])('falls back to the merge on %s', async (_name, text) => {
    const model = new ScriptedChatModel({ byStage: { 'dio/compile': [text] } });
    const result = await compilePrompt(model, input(), silentLogger);
    expect(result).toEqual({ compiledPrompt: mergePrompt(BASE, REQUIREMENTS), compiledBy: 'merge' });
  });

  it("strips a model's reasoning before validating and never keeps it", async () => {
    const kept = `${BASE}\n${REQUIREMENTS.join('\n')}`;
    const model = new ScriptedChatModel({ byStage: { 'dio/compile': [`<think>The player wants short sentences. 莉娅 must stay.</think>\n${kept}`] } });
    expect(await compilePrompt(model, input(), silentLogger)).toEqual({ compiledPrompt: kept, compiledBy: 'model' });
    // a template that opens the block itself sends only the closing tag
    const unopened = new ScriptedChatModel({ byStage: { 'dio/compile': [`thinking…</think>${kept}`] } });
    expect((await compilePrompt(unopened, input(), silentLogger)).compiledPrompt).toBe(kept);
    // every requirement is in the rewrite's own words: no verification call is needed
    expect(model.callsFor('dio/verify')).toHaveLength(0);
  });

  const REWRITE = '你是莉娅，灯塔旅店的老板。回答用短句，少用比喻，偶尔提到海浪。';
  const verdict = (entries: { index: number; kept: boolean; evidence: string }[]) => JSON.stringify({ requirements: entries });

  it('a rewrite in other words is used only when a verification confirms each requirement with a quote from it', async () => {
    const model = new ScriptedChatModel({
      byStage: { 'dio/compile': [REWRITE], 'dio/verify': [verdict([{ index: 1, kept: true, evidence: '回答用短句，少用比喻' }, { index: 2, kept: true, evidence: '偶尔提到海浪' }])] },
    });
    expect(await compilePrompt(model, input(), silentLogger)).toEqual({ compiledPrompt: REWRITE, compiledBy: 'model' });
    const check = model.callsFor('dio/verify')[0];
    expect(check?.json).toMatchObject({ name: 'dio_verify' });
    expect(check?.messages.at(-1)?.content).toContain(`1. ${REQUIREMENTS[0]}\n2. ${REQUIREMENTS[1]}`);
  });

  it.each([
    ['a requirement not applied', verdict([{ index: 1, kept: true, evidence: '回答用短句' }, { index: 2, kept: false, evidence: '' }])],
    ['a quote that is not in the prompt', verdict([{ index: 1, kept: true, evidence: '回答用短句' }, { index: 2, kept: true, evidence: '每句都提到海浪' }])],
    ['a requirement left out of the answer', verdict([{ index: 1, kept: true, evidence: '回答用短句' }])],
    ['an answer that is not JSON', 'Looks good to me.'],
  ])('falls back to the merge when the verification finds %s', async (_name, answer) => {
    const model = new ScriptedChatModel({ byStage: { 'dio/compile': [REWRITE], 'dio/verify': [answer] } });
    expect(await compilePrompt(model, input(), silentLogger)).toEqual({ compiledPrompt: mergePrompt(BASE, REQUIREMENTS), compiledBy: 'merge' });
  });

  it('a failing model falls back; an aborted compilation rejects with the abort reason and produces nothing', async () => {
    const failing: ChatModel = { id: 'failing', generate: async () => Promise.reject(new Error('down')) };
    expect((await compilePrompt(failing, input(), silentLogger)).compiledBy).toBe('merge');
    const verifyFails = new ScriptedChatModel({
      byStage: {
        'dio/compile': [REWRITE],
        'dio/verify': [
          () => {
            throw new Error('verifier down');
          },
        ],
      },
    });
    expect((await compilePrompt(verifyFails, input(), silentLogger)).compiledBy).toBe('merge');
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

  it('through a real OpenAI-compatible adapter over loopback: reasoning fields and inline thinking stripped, checked output used, bad output and 500 fall back', async () => {
    const kept = `${BASE}\n${REQUIREMENTS.join('\n')}`;
    const answers = [
      { status: 200, content: `<think>莉娅……</think>${kept}` },
      { status: 200, content: '你是莉娅。回答用短句。' },
      { status: 200, content: 'I am a helpful assistant.' },
      { status: 500 },
    ];
    let index = 0;
    const mock = await openAIServer(() => answers[Math.min(index++, answers.length - 1)] as { status: number; content?: string });
    const model = openAICompatibleModel({ baseURL: mock.url, model: 'm', apiKey: 'k', maxRetries: 0, timeoutMs: 5_000 }, {});
    expect(await compilePrompt(model, input(), silentLogger)).toEqual({ compiledPrompt: kept, compiledBy: 'model' });
    // a paraphrase is verified by the same server, whose answer here is no verdict
    expect((await compilePrompt(model, input(), silentLogger)).compiledBy).toBe('merge');
    expect((await compilePrompt(model, input(), silentLogger)).compiledBy).toBe('merge');
    expect(mock.requests).toHaveLength(4);
    expect(JSON.stringify(mock.requests[0])).toContain(REQUIREMENTS[0]);
  });
});
