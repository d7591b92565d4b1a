import { estimateTokenizer } from '@troupe/kernel';
import { describe, expect, it } from 'vitest';
import { expectError, freshId, playTurn, streamPost } from './support/api-client.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

// Token counts per message and SillyTavern's prompt itemization: the actor's prompt of a turn's
// kept step, as recorded when the step ran, block by block with tokens.

const fx = setupWebFixture();
const { api } = fx;

interface Block {
  index: number;
  role: string;
  source: string;
  tokens: number;
  chars: number;
  preview: string;
}

const resultOf = (messages: Awaited<ReturnType<typeof playTurn>>) => messages.find((message) => message.event === 'result')?.data as { turnId: string; step: number; prepared: { history: { role: string; content: string }[] } };

describe('prompt itemization API', () => {
  it('lists each block of the actor’s prompt with its source and tokens, as it was sent', async () => {
    const session = freshId('itemize');
    const first = resultOf(await playTurn(fx.server.url, session, '你好，莉娅。'));
    const second = resultOf(await playTurn(fx.server.url, session, '今晚有船吗？'));

    const answer = await api('GET', `/api/sessions/${session}/turns/${second.turnId}/prompt`);
    expect(answer.status).toBe(200);
    const { blocks, totalTokens, tokenizer, contextTokens, promptTokens, kept, step } = answer.body as {
      blocks: Block[];
      totalTokens: number;
      tokenizer: { id: string; exact: boolean };
      contextTokens: number;
      promptTokens: number;
      kept: boolean;
      step: number;
    };
    expect({ step, kept }).toEqual({ step: 0, kept: true });
    expect(tokenizer).toEqual({ id: 'estimate', exact: false });
    expect(contextTokens).toBeGreaterThan(promptTokens);
    // One block per message the actor was sent, in order, each with its role and a preview.
    // (history blocks keep a short start: the chat shows them in full, and every prompt repeats them)
    expect(blocks.map((block) => [block.role, block.preview])).toEqual(
      second.prepared.history.map((message, index) => [message.role, message.content.slice(0, blocks[index]?.source === 'history' ? 80 : 600)]),
    );
    expect(blocks.map((block) => block.chars)).toEqual(second.prepared.history.map((message) => message.content.length));
    expect(blocks.map((block) => block.index)).toEqual(blocks.map((_, index) => index));
    // The blocks say where they came from: the preset's prompts, the earlier exchange, the input.
    const sources = blocks.map((block) => block.source);
    expect(sources.filter((source) => source === 'input')).toHaveLength(1);
    expect(blocks.find((block) => block.source === 'input')?.preview).toContain('今晚有船吗？');
    expect(blocks.filter((block) => block.source === 'history').map((block) => block.role)).toEqual(['user', 'assistant']);
    expect(sources).toContain('prompt');
    // Tokens: every block counted with its framing; the total is the whole prompt.
    // (calibrated by what the server reported on earlier turns, so not the raw estimate)
    for (const block of blocks) expect(block.tokens).toBeGreaterThan(0);
    const sum = blocks.reduce((total, block) => total + block.tokens, 0);
    expect(Math.abs(totalTokens - sum)).toBeLessThanOrEqual(blocks.length + 3);

    // The first turn's prompt has no history.
    const earlier = await api('GET', `/api/sessions/${session}/turns/${first.turnId}/prompt`);
    expect((earlier.body.blocks as Block[]).some((block) => block.source === 'history')).toBe(false);
  });

  it('follows the kept step: a regenerated step has its own record, and a swipe back shows step 0’s', async () => {
    const session = freshId('itemize-steps');
    const first = resultOf(await playTurn(fx.server.url, session, '你好。'));
    await streamPost(`${fx.server.url}/api/sessions/${session}/turns/${first.turnId}/regenerate`, {});
    const regenerated = await api('GET', `/api/sessions/${session}/turns/${first.turnId}/prompt`);
    expect({ step: regenerated.body.step, kept: regenerated.body.kept }).toEqual({ step: 1, kept: true });
    expect((await api('PUT', `/api/sessions/${session}/turns/${first.turnId}/step`, { step: 0 })).status).toBe(200);
    const swiped = await api('GET', `/api/sessions/${session}/turns/${first.turnId}/prompt`);
    expect({ step: swiped.body.step, kept: swiped.body.kept }).toEqual({ step: 0, kept: true });
    const other = await api('GET', `/api/sessions/${session}/turns/${first.turnId}/prompt?step=1`);
    expect({ step: other.body.step, kept: other.body.kept }).toEqual({ step: 1, kept: false });
  });

  it('marks the reply being continued in a continue step’s prompt', async () => {
    const session = freshId('itemize-continue');
    const first = resultOf(await playTurn(fx.server.url, session, '讲个故事吧。'));
    const continued = resultOf(await streamPost(`${fx.server.url}/api/sessions/${session}/continue`, {}));
    expect(continued).toMatchObject({ turnId: first.turnId, step: 1 });
    const answer = await api('GET', `/api/sessions/${session}/turns/${first.turnId}/prompt`);
    const blocks = answer.body.blocks as Block[];
    expect(answer.body.step).toBe(1);
    const continuation = blocks.filter((block) => block.source === 'continuation');
    expect(continuation).toHaveLength(1);
    expect(continuation[0]?.role).toBe('assistant');
    expect(blocks.indexOf(continuation[0] as Block)).toBeGreaterThan(blocks.findIndex((block) => block.source === 'input'));
  });

  it('counts the tokens of every visible message with the actor model’s tokenizer', async () => {
    const session = freshId('tokens');
    await playTurn(fx.server.url, session, '你好，莉娅。今晚的港口很安静。');
    const answer = await api('GET', `/api/sessions/${session}/token-counts`);
    expect(answer.status).toBe(200);
    const messages = (await api('GET', `/api/sessions/${session}/messages`)).body.messages as { turnId: string; step: number; input: string; reply: string }[];
    expect(answer.body.tokenizer).toEqual({ id: 'estimate', exact: false });
    expect(answer.body.messages).toEqual(messages.map((m) => ({ turnId: m.turnId, step: m.step, input: estimateTokenizer.count(m.input), reply: estimateTokenizer.count(m.reply) })));
    expect(answer.body.messages[0].input).toBeGreaterThan(10);
  });

  it('answers unknown sessions, turns and steps, bad steps and unrecorded prompts with stable codes', async () => {
    const session = freshId('itemize-errors');
    const turn = resultOf(await playTurn(fx.server.url, session, '你好。'));
    expectError(await api('GET', `/api/sessions/${freshId('nobody')}/token-counts`), 404, 'SESSION_NOT_FOUND');
    expectError(await api('GET', `/api/sessions/${session}/turns/nope/prompt`), 404, 'KERNEL_TURN_NOT_FOUND');
    expectError(await api('GET', `/api/sessions/${session}/turns/${turn.turnId}/prompt?step=7`), 404, 'KERNEL_STEP_NOT_FOUND');
    expectError(await api('GET', `/api/sessions/${session}/turns/${turn.turnId}/prompt?step=-1`), 400, 'INVALID_REQUEST');
    expectError(await api('GET', `/api/sessions/${session}/turns/${turn.turnId}/prompt?step=x`), 400, 'INVALID_REQUEST');
    expectError(await api('GET', `/api/sessions/${session}/turns/bad%20id!/prompt`), 400, 'INVALID_ID');
    // A turn committed without the recording (an imported log): said plainly, not an empty list.
    await fx.demo.storage.sessions.append(session, [
      { type: 'kernel/turn-committed', turnId: 'imported', step: 0, ignorable: false, at: new Date().toISOString(), data: { input: 'old', reply: 'older' } },
    ]);
    expectError(await api('GET', `/api/sessions/${session}/turns/imported/prompt`), 404, 'PROMPT_NOT_RECORDED');
  });
});
