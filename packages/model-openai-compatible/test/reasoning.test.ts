import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { generateJson, ModelError, openAICompatibleModel } from '../src/index.js';
import { InlineReasoningSplitter, splitInlineReasoning } from '../src/inline-reasoning.js';
import { chatRequest, chunk, collect, completion, type LoopbackServer, sendJson, sse, startServer, startSse } from './loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Part = { type: string; text?: string; response?: { text: string; reasoning?: string } };

function streamOf(deltas: readonly Record<string, unknown>[], finish = 'stop') {
  return startServer((_req, res) => {
    startSse(res);
    for (const delta of deltas) sse(res, chunk(delta));
    sse(res, chunk({}, finish));
    sse(res, '[DONE]');
    res.end();
  });
}

function joined(parts: readonly Part[], type: string): string {
  return parts
    .filter((part) => part.type === type)
    .map((part) => part.text)
    .join('');
}

describe('reasoning fields', () => {
  it('separates `reasoning_content` (vLLM < 0.10 reasoning parsers, llama.cpp --reasoning-format deepseek, DeepSeek API docs "Reasoning Model")', async () => {
    server = await startServer((_req, res) =>
      sendJson(res, 200, {
        ...(completion('她点了点头。') as object),
        choices: [{ index: 0, message: { role: 'assistant', content: '她点了点头。', reasoning_content: '用户在问路，莉娅应当简短回答。' }, finish_reason: 'stop' }],
      }),
    );
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'deepseek-reasoner', maxRetries: 0 }, {});
    const response = await model.generate(chatRequest());
    expect(response.text).toBe('她点了点头。');
    expect(response.reasoning).toBe('用户在问路，莉娅应当简短回答。');
  });

  it('separates streamed `reasoning` deltas (Ollama /v1 and vLLM 0.10+ send `reasoning`) into reasoning-delta parts', async () => {
    server = await streamOf([{ role: 'assistant', reasoning: 'The player greets. ' }, { reasoning: 'Answer warmly.' }, { content: 'Welcome, ' }, { content: 'traveler.' }]);
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'qwen3', maxRetries: 0 }, {});
    const parts = (await collect(model.stream!(chatRequest()))) as Part[];
    expect(joined(parts, 'reasoning-delta')).toBe('The player greets. Answer warmly.');
    expect(joined(parts, 'text-delta')).toBe('Welcome, traveler.');
    expect(parts.at(-1)?.response).toMatchObject({ text: 'Welcome, traveler.', reasoning: 'The player greets. Answer warmly.' });
  });
});

describe('inline <think> blocks', () => {
  it('strips a leading <think> block from a whole answer (QwQ / DeepSeek-R1 distills without a reasoning parser)', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('<think>\nShe should be wary.\n</think>\n\n"Who sent you?" Lia asks.')));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'qwq', maxRetries: 0 }, {});
    const response = await model.generate(chatRequest());
    expect(response.text).toBe('"Who sent you?" Lia asks.');
    expect(response.reasoning).toBe('\nShe should be wary.\n');
  });

  it('splits tags cut across chunks while streaming, never showing the reasoning as text', async () => {
    server = await streamOf([{ content: '<th' }, { content: 'ink>plan: be ' }, { content: 'brief</thi' }, { content: 'nk>\n\nHel' }, { content: 'lo.' }]);
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'deepseek-r1', maxRetries: 0 }, {});
    const parts = (await collect(model.stream!(chatRequest()))) as Part[];
    expect(joined(parts, 'text-delta')).toBe('Hello.');
    expect(joined(parts, 'reasoning-delta')).toBe('plan: be brief');
    expect(parts.at(-1)?.response).toMatchObject({ text: 'Hello.', reasoning: 'plan: be brief' });
  });

  it('treats everything before a bare </think> as reasoning (template opens the block: deepseek-ai/DeepSeek-R1#352, open-webui/open-webui#9808), then starts the next answers in reasoning', async () => {
    let call = 0;
    server = await startServer((_req, res) => {
      call++;
      startSse(res);
      const deltas = call === 1 ? ['Okay, the user', ' says hi.\n</think>\n\n', 'Hi!'] : ['Second thought', '</think>', 'Again hi.'];
      for (const content of deltas) sse(res, chunk({ content }));
      sse(res, chunk({}, 'stop'));
      res.end();
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'deepseek-r1-distill-qwen-32b', maxRetries: 0 }, {});
    const first = (await collect(model.stream!(chatRequest()))) as Part[];
    // The first answer is corrected at the finish (the opening text already streamed as text).
    expect(first.at(-1)?.response).toMatchObject({ text: 'Hi!', reasoning: 'Okay, the user says hi.\n' });
    const second = (await collect(model.stream!(chatRequest()))) as Part[];
    expect(joined(second, 'text-delta')).toBe('Again hi.');
    expect(joined(second, 'reasoning-delta')).toBe('Second thought');
    expect(second.at(-1)?.response).toMatchObject({ text: 'Again hi.', reasoning: 'Second thought' });
  });

  it('thinkTags: off leaves the content as sent', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('<think>x</think>y')));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, { TROUPE_MODEL_THINK_TAGS: 'off' });
    expect((await model.generate(chatRequest())).text).toBe('<think>x</think>y');
  });

  it('gives JSON stages clean JSON when the model thinks inline first', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('<think>The schema wants name and mood. {not json}</think>\n```json\n{"name":"Lia","mood":"calm"}\n```')));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'qwen3', maxRetries: 0 }, {});
    const result = await generateJson(model, chatRequest({ meta: { stage: 'story/character', sessionId: 's', turnId: 't' } }), z.object({ name: z.string(), mood: z.string() }));
    expect(result.value).toEqual({ name: 'Lia', mood: 'calm' });
    expect(server.requests).toHaveLength(1);
  });
});

describe('reasoning without an answer', () => {
  it('is MODEL_REASONING_ONLY, not an empty reply (generate)', async () => {
    server = await startServer((_req, res) =>
      sendJson(res, 200, {
        ...(completion('') as object),
        choices: [{ index: 0, message: { role: 'assistant', content: '', reasoning_content: 'Let me think about the harbour…' }, finish_reason: 'length' }],
      }),
    );
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    const error = await model.generate(chatRequest()).catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('MODEL_REASONING_ONLY');
    expect((error as ModelError).message).toContain('response length');
    expect((error as ModelError).details).toMatchObject({ finishReason: 'length', reasoning: 'Let me think about the harbour…' });
  });

  it('is MODEL_REASONING_ONLY when a stream closes inside an unclosed <think> block', async () => {
    server = await streamOf([{ content: '<think>I need to consider' }, { content: ' the guild debt' }], 'length');
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    const error = await collect(model.stream!(chatRequest())).catch((caught: unknown) => caught);
    expect((error as ModelError).code).toBe('MODEL_REASONING_ONLY');
  });
});

describe('the splitter itself', () => {
  it('gives the same split for every way of cutting the content into deltas', () => {
    const contents = ['<think>a<b</think>\n\nanswer </think> kept', '  <think>x</think>y', 'plain <think> not leading', 'r1 style</think>\nanswer', '<thi', '</thin'];
    for (const content of contents) {
      const whole = splitInlineReasoning(content);
      for (let size = 1; size <= 4; size++) {
        const splitter = new InlineReasoningSplitter(false);
        let text = '';
        for (let index = 0; index < content.length; index += size) text += splitter.push(content.slice(index, index + size)).text;
        text += splitter.end().text;
        expect({ text: splitter.text, reasoning: splitter.reasoning }).toEqual({ text: whole.text, reasoning: whole.reasoning });
        if (!whole.bareClose) expect(text).toBe(whole.text);
      }
    }
    expect(splitInlineReasoning('<think>a<b</think>\n\nanswer </think> kept')).toEqual({ text: 'answer </think> kept', reasoning: 'a<b', bareClose: false });
    expect(splitInlineReasoning('plain <think> not leading').text).toBe('plain <think> not leading');
  });

  it('started in reasoning, an answer without </think> is all text', () => {
    const splitter = new InlineReasoningSplitter(true);
    splitter.push('No thinking today.');
    splitter.end();
    expect({ text: splitter.text, reasoning: splitter.reasoning }).toEqual({ text: 'No thinking today.', reasoning: '' });
  });
});
