import { createHash } from 'node:crypto';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { createHarness } from '@troupe/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { DioClient, DioError, dioPlugin } from '../src/index.js';
import { type LoopbackServer, startLoopbackServer } from './helpers/loopback-server.js';
import { probePlugin } from './helpers/probe-plugin.js';

const STRESS = process.env.STRESS === '1';
const PROMPT = '你是莉娅，一位温和的旅店老板。\n\n## 长期要求 / Lasting requirements\n- 从现在起莉娅都用短句回答，少用比喻。';
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const GOOD = { versionId: 'v1', sourceVersionId: 's1', changeset: { added: [], removed: [] }, compiledPrompt: PROMPT, compiledPromptSha256: sha(PROMPT) };
const QUERY = { userId: 'user-1', rpConversationId: 'conv-1', targetPromptId: 'lia' };

/** A small deterministic PRNG so failures reproduce. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One mutated body whose hash no longer matches its text (or is malformed). */
function mutate(random: () => number): { kind: string; body: Record<string, unknown> } {
  const text = GOOD.compiledPrompt;
  const at = Math.floor(random() * text.length);
  const kinds = ['flip-char', 'truncate', 'append', 'flip-hex', 'other-hash', 'nfd', 'bom'] as const;
  const kind = kinds[Math.floor(random() * kinds.length)] as (typeof kinds)[number];
  switch (kind) {
    case 'flip-char': {
      const code = text.charCodeAt(at);
      return { kind, body: { ...GOOD, compiledPrompt: text.slice(0, at) + String.fromCharCode(code === 0x41 ? 0x42 : code ^ 1) + text.slice(at + 1) } };
    }
    case 'truncate':
      return { kind, body: { ...GOOD, compiledPrompt: text.slice(0, at) } };
    case 'append':
      return { kind, body: { ...GOOD, compiledPrompt: `${text}${String.fromCharCode(33 + Math.floor(random() * 90))}` } };
    case 'flip-hex': {
      const index = Math.floor(random() * 64);
      const digit = GOOD.compiledPromptSha256[index] as string;
      const replacement = ((Number.parseInt(digit, 16) + 1 + Math.floor(random() * 15)) % 16).toString(16);
      return { kind, body: { ...GOOD, compiledPromptSha256: GOOD.compiledPromptSha256.slice(0, index) + replacement + GOOD.compiledPromptSha256.slice(index + 1) } };
    }
    case 'other-hash':
      return { kind, body: { ...GOOD, compiledPromptSha256: sha(`${text}${at}`) } };
    case 'nfd':
      return { kind, body: { ...GOOD, compiledPrompt: text.replace('莉娅', 'Le\u0301a') } };
    case 'bom':
      return { kind, body: { ...GOOD, compiledPrompt: `\ufeff${text}` } };
  }
}

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('SHA-256 verification of the active prompt', () => {
  it(`rejects ${STRESS ? 10_000 : 1_000} mutated bodies over loopback; none is ever returned`, async () => {
    let body: unknown = GOOD;
    server = await startLoopbackServer(() => ({ status: 200, json: body }));
    const client = new DioClient(server.url, 2_000);
    const random = prng(42);
    const kinds = new Map<string, number>();
    const runs = STRESS ? 10_000 : 1_000;
    for (let run = 0; run < runs; run++) {
      const mutation = mutate(random);
      body = mutation.body;
      kinds.set(mutation.kind, (kinds.get(mutation.kind) ?? 0) + 1);
      const outcome = await client.activePrompt(QUERY).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      expect('value' in outcome, `mutation ${mutation.kind} #${run} was accepted`).toBe(false);
      const error = (outcome as { error: unknown }).error;
      expect(DioError.isInstance(error)).toBe(true);
      // Truncating to nothing breaks the schema instead of the hash; both are refusals.
      expect(['DIO_HASH_MISMATCH', 'DIO_INVALID_RESPONSE']).toContain((error as DioError).code);
    }
    expect(server.requests).toHaveLength(runs);
    expect(kinds.size).toBe(7);
  }, 120_000);

  it('accepts the untouched body, and the same body with keys reordered (the hash covers compiledPrompt, not the JSON)', async () => {
    const reordered = JSON.stringify({ compiledPromptSha256: GOOD.compiledPromptSha256, compiledPrompt: PROMPT, changeset: GOOD.changeset, sourceVersionId: 's1', versionId: 'v1' }, null, 3);
    let raw = JSON.stringify(GOOD);
    server = await startLoopbackServer(() => ({ status: 200, raw }));
    const client = new DioClient(server.url, 2_000);
    expect((await client.activePrompt(QUERY))?.compiledPrompt).toBe(PROMPT);
    raw = reordered;
    expect((await client.activePrompt(QUERY))?.compiledPrompt).toBe(PROMPT);
  });

  it('accepts a correct SHA-256 written in upper-case hex (the same hash), and reports it lower-case', async () => {
    const upper = { ...GOOD, compiledPromptSha256: GOOD.compiledPromptSha256.toUpperCase() };
    server = await startLoopbackServer(() => ({ status: 200, json: upper }));
    const prompt = await new DioClient(server.url, 2_000).activePrompt(QUERY);
    expect(prompt?.compiledPrompt).toBe(PROMPT);
    expect(prompt?.compiledPromptSha256).toBe(GOOD.compiledPromptSha256);
  });

  it(`in a turn, a mismatched prompt is never used: one dio/active-prompt-degraded event each (${STRESS ? 1_000 : 60} turns)`, async () => {
    let body: unknown = GOOD;
    server = await startLoopbackServer(() => ({ status: 200, json: body }));
    const seen: Array<string | undefined> = [];
    const sessionLog = new MemorySessionLog();
    const model = new ScriptedChatModel();
    const harness = await createHarness({ plugins: [dioPlugin({ baseUrl: server.url, targetPromptId: 'lia' }), probePlugin(seen)], model, sessionLog });
    const random = prng(7);
    const turns = STRESS ? 1_000 : 60;
    for (let turn = 0; turn < turns; turn++) {
      body = mutate(random).body;
      const result = await harness.runTurn({ sessionId: 's1', text: `hello ${turn}`, userId: 'user-1' });
      const dioEvents = result.events.filter((event) => event.type.startsWith('dio/'));
      expect(dioEvents.map((event) => event.type)).toEqual(['dio/active-prompt-degraded']);
      expect(JSON.stringify(result.prepared.history)).not.toContain('少用比喻');
    }
    expect(seen).toHaveLength(turns);
    expect(seen.every((value) => value === undefined)).toBe(true);
    // And the honest body is used.
    body = GOOD;
    const ok = await harness.runTurn({ sessionId: 's1', text: 'hello again', userId: 'user-1' });
    expect(ok.events.filter((event) => event.type.startsWith('dio/')).map((event) => event.type)).toEqual(['dio/active-prompt-applied']);
    expect(ok.prepared.history[0]).toEqual({ role: 'system', content: PROMPT });
    await harness.close();
  }, 120_000);
});
