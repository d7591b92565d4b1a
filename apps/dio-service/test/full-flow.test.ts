import { createHash } from 'node:crypto';
import { createHarness } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { offlineModel } from '@troupe/model-offline';
import { actorAssemblerPlugin, defaultPreset } from '@troupe/plugin-actor-assembler';
import { dioPlugin } from '@troupe/plugin-dio';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, LIA_BASE, registerLia, startTestService, TOKENS } from './helpers/test-service.js';

const REQUIREMENT = '从现在起莉娅都用短句回答，少用比喻。';
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const track = closeAfterEach();

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('DIO end to end: plugin-dio + actor assembler + reference service over loopback', () => {
  it('turn 1 schedules the raw requirement without waiting; turn 2 puts the complete compiled prompt in the roleplay slot', async () => {
    // The service's compiler waits for a gate, so the task is provably still processing while turn 1 replies.
    let openGate: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const offline = offlineModel();
    const gatedCompiler = {
      id: 'gated-offline',
      generate: async (request: Parameters<typeof offline.generate>[0]) => {
        // Honour cancellation like a real model, so a failed test still shuts down.
        await new Promise<void>((resolve, reject) => {
          gate.then(resolve);
          request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
        });
        return offline.generate(request);
      },
    };
    const running = track(await startTestService({ model: gatedCompiler }));
    await registerLia(running.url);
    const sessionLog = new MemorySessionLog();
    const model = new ScriptedChatModel({
      byStage: {
        director: [{ text: '', toolCalls: [{ id: 'call-1', name: 'schedule_dio', arguments: {} }] }, 'none'],
        actor: ['好的，我记住了。', '晴。风小。'],
      },
    });
    const harness = track(await createHarness({
      plugins: [
        dioPlugin({ baseUrl: running.url, targetPromptId: 'lia-character', pollIntervalMs: 25 }),
        actorAssemblerPlugin({ preset: defaultPreset(), char: '莉娅', user: '阿明', fields: { description: LIA_BASE } }),
      ],
      model,
      sessionLog,
      scenario: { preActorDirector: true },
    }));
    const identity = { sessionId: 'conversation-8', userId: 'alice', authorization: `Bearer ${TOKENS.alice}` };

    const turn1 = await harness.runTurn({ ...identity, turnId: 'rp-turn-101', text: REQUIREMENT });
    expect(turn1.reply).toBe('好的，我记住了。');
    expect(turn1.events.map((event) => event.type)).toContain('dio/scheduled');
    // Turn 1 replied while the task was still processing, with the original character prompt.
    expect(turn1.prepared.history[1]?.content.trim()).toBe(LIA_BASE);
    expect(harness.backgroundTasks).toBe(1);
    expect(turn1.events.map((event) => event.type)).toContain('dio/active-prompt-none');
    openGate();

    await waitFor(() => harness?.backgroundTasks === 0, 'the background wait');
    const terminal = (await sessionLog.read('conversation-8')).filter((event) => event.type === 'dio/task-terminal');
    expect(terminal).toHaveLength(1);
    expect(terminal[0]?.data).toMatchObject({ requestId: 'rp-turn-101:dio', status: 'succeeded', promptChanged: true });
    const compiledSha = (terminal[0]?.data as { compiledPromptSha256?: string } | undefined)?.compiledPromptSha256 ?? '';
    expect(compiledSha).toMatch(/^[0-9a-f]{64}$/);

    const turn2 = await harness.runTurn({ ...identity, text: '明天天气怎么样？' });
    const applied = turn2.events.find((event) => event.type === 'dio/active-prompt-applied');
    expect(applied?.data).toMatchObject({ compiledPromptSha256: compiledSha, versionId: 'v1' });
    const contents = turn2.prepared.history.map((message) => message.content);
    const roles = turn2.prepared.history.map((message) => message.role);
    // Control prompt, then the COMPLETE compiled character prompt in the roleplay slot, then history, then the question.
    expect(contents[0]).toBe(defaultPreset().prompts[0]?.content.replaceAll('{{char}}', '莉娅').replaceAll('{{user}}', '阿明'));
    const slot = contents[1] ?? '';
    expect(sha(slot)).toBe(compiledSha);
    expect(slot.startsWith(LIA_BASE)).toBe(true);
    expect(slot).toContain(REQUIREMENT);
    expect(contents.slice(2)).toEqual([REQUIREMENT, '好的，我记住了。', '明天天气怎么样？']);
    expect(roles).toEqual(['system', 'system', 'user', 'assistant', 'user']);
    // The original description is not kept elsewhere or appended at the end.
    expect(contents.filter((content) => content.includes(LIA_BASE))).toHaveLength(1);
    // What the actor model really received.
    expect(model.callsFor('actor')[1]?.messages).toEqual(turn2.prepared.history);
  });

  it('the turn that states a requirement never picks up its own compiled prompt, even when compilation is instant', async () => {
    const running = track(await startTestService());
    await registerLia(running.url);
    const { DioClient } = await import('@troupe/plugin-dio');
    const observer = new DioClient(running.url, 2_000);
    const model = new ScriptedChatModel({
      byStage: {
        director: [
          { text: '', toolCalls: [{ id: 'call-1', name: 'schedule_dio', arguments: {} }] },
          // Before the director finishes, the service has already compiled the new prompt.
          async () => {
            await observer.waitForTerminal('rp-turn-7:dio', { userAuthorization: `Bearer ${TOKENS.alice}`, intervalMs: 10 });
            return 'none';
          },
        ],
        actor: ['好的。'],
      },
    });
    const harness = track(await createHarness({
      plugins: [
        dioPlugin({ baseUrl: running.url, targetPromptId: 'lia-character' }),
        actorAssemblerPlugin({ preset: defaultPreset(), char: '莉娅', fields: { description: LIA_BASE } }),
      ],
      model,
      sessionLog: new MemorySessionLog(),
      scenario: { preActorDirector: true },
    }));
    const turn = await harness.runTurn({ sessionId: 'conversation-9', userId: 'alice', authorization: `Bearer ${TOKENS.alice}`, turnId: 'rp-turn-7', text: REQUIREMENT });
    const lookups = turn.events.filter((event) => event.type.startsWith('dio/active-prompt-'));
    expect(lookups.map((event) => event.type)).toEqual(['dio/active-prompt-none']);
    expect(turn.prepared.history[1]?.content.trim()).toBe(LIA_BASE);
    expect(turn.prepared.history.some((message) => message.content.includes('短句') && message.role === 'system')).toBe(false);
  });

  it('the actor turn fails clearly (no degradation) when the preset has no place for the compiled prompt', async () => {
    const running = track(await startTestService());
    await registerLia(running.url);
    const client = await import('@troupe/plugin-dio').then(({ DioClient }) => new DioClient(running!.url, 2_000));
    const accepted = await client.schedule({
      actorTurnRequestId: 't0',
      userId: 'alice',
      rpConversationId: 'c2',
      targetPromptId: 'lia-character',
      instruction: REQUIREMENT,
      language: 'zh',
      userAuthorization: `Bearer ${TOKENS.alice}`,
    });
    await client.waitForTerminal(accepted.requestId, { userAuthorization: `Bearer ${TOKENS.alice}`, intervalMs: 20 });
    const noSlot = { prompts: defaultPreset().prompts.filter((prompt) => prompt.name !== 'roleplay') };
    const harness = track(await createHarness({
      plugins: [dioPlugin({ baseUrl: running.url, targetPromptId: 'lia-character' }), actorAssemblerPlugin({ preset: noSlot, char: '莉娅' })],
      model: new ScriptedChatModel(),
      sessionLog: new MemorySessionLog(),
    }));
    await expect(harness.runTurn({ sessionId: 'c2', userId: 'alice', authorization: `Bearer ${TOKENS.alice}`, text: 'hi' })).rejects.toMatchObject({
      code: 'KERNEL_HOOK_FAILED',
      plugin: '@troupe/plugin-actor-assembler',
    });
  });
});
