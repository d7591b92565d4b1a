import { defineDirectorTool, type ToolCall } from '@troupe/kernel';
import { createTestHarness, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { testPlugin } from './helpers.js';

const RAW_INPUT = '从现在起莉娅都用短句回答，少用比喻。';

/** A director that makes `calls` in its first round and stops in the second. */
function directorCalling(...calls: ToolCall[]) {
  return new ScriptedChatModel({ byStage: { director: [{ text: '', toolCalls: calls }, 'none'] } });
}

function toolPlugin(executed: unknown[]) {
  return testPlugin('dio-like', (ctx) => {
    ctx.registerTool(
      defineDirectorTool({
        name: 'schedule_dio',
        description: 'Record a lasting requirement',
        parameters: z.object({ note: z.string().max(20).optional() }).strict(),
        oncePerTurn: true,
        execute: async (params, turn) => {
          executed.push({ params, input: turn.input, turnId: turn.turnId });
          turn.events.append('dio/scheduled', { requestId: `${turn.turnId}:dio` });
          return { accepted: true };
        },
      }),
    );
    ctx.registerTool(
      defineDirectorTool({
        name: 'roll_dice',
        description: 'Roll dice',
        parameters: z.object({}),
        execute: async () => {
          throw new Error('dice fell off the table');
        },
      }),
    );
  });
}

/** The tool results the director model received in its second round. */
function toolResults(model: ScriptedChatModel): unknown[] {
  const second = model.callsFor('director')[1];
  return (second?.messages ?? []).filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content));
}

describe('director tool loop', () => {
  it('runs a valid call with the raw player input, not the model-written arguments', async () => {
    const executed: unknown[] = [];
    const model = directorCalling({ id: 'c1', name: 'schedule_dio', arguments: { note: 'short' } });
    const { harness } = await createTestHarness({ model, plugins: [toolPlugin(executed)], scenario: { preActorDirector: true } });
    const result = await harness.runTurn({ sessionId: 's', text: RAW_INPUT, turnId: 'rp-turn-101' });
    expect(executed).toEqual([{ params: { note: 'short' }, input: RAW_INPUT, turnId: 'rp-turn-101' }]);
    expect(toolResults(model)).toEqual([{ ok: true, result: { accepted: true } }]);
    const first = model.callsFor('director')[0];
    expect(first?.tools?.map((tool) => tool.name)).toEqual(['schedule_dio', 'roll_dice']);
    expect(first?.tools?.[0]?.parameters).toMatchObject({ type: 'object', properties: { note: { type: 'string' } } });
    expect(result.events.map((event) => event.type)).toEqual(['dio/scheduled', 'kernel/tool-called', 'kernel/turn-committed']);
  });

  it.each([
    ['an unknown tool', { id: 'c1', name: 'delete_world', arguments: {} }, 'TOOL_UNKNOWN'],
    ['invalid arguments', { id: 'c1', name: 'schedule_dio', arguments: { note: 42 } }, 'TOOL_INVALID_ARGUMENTS'],
    ['a failing tool', { id: 'c1', name: 'roll_dice', arguments: {} }, 'TOOL_FAILED'],
  ])('feeds back a tool error for %s', async (_label, call, code) => {
    const executed: unknown[] = [];
    const model = directorCalling(call);
    const { harness } = await createTestHarness({ model, plugins: [toolPlugin(executed)], scenario: { preActorDirector: true } });
    const result = await harness.runTurn({ sessionId: 's', text: 'hello' });
    expect(executed).toEqual([]);
    expect(toolResults(model)).toEqual([{ ok: false, error: { code, message: expect.any(String) } }]);
    expect(result.reply).toBe('echo: hello');
  });

  it('rejects a tool that is not enabled in the scenario', async () => {
    const executed: unknown[] = [];
    const model = directorCalling({ id: 'c1', name: 'schedule_dio', arguments: {} });
    const { harness } = await createTestHarness({ model, plugins: [toolPlugin(executed)], scenario: { preActorDirector: true, tools: ['roll_dice'] } });
    await harness.runTurn({ sessionId: 's', text: RAW_INPUT });
    expect(executed).toEqual([]);
    expect(toolResults(model)).toEqual([{ ok: false, error: { code: 'TOOL_NOT_ENABLED', message: expect.any(String) } }]);
    expect(model.callsFor('director')[0]?.tools?.map((tool) => tool.name)).toEqual(['roll_dice']);
  });

  it('rejects a second call of a once-per-turn tool, and allows it again next turn', async () => {
    const executed: unknown[] = [];
    const call = { id: 'c1', name: 'schedule_dio', arguments: {} };
    const model = new ScriptedChatModel({
      byStage: { director: [{ text: '', toolCalls: [call, { ...call, id: 'c2' }] }, 'none', { text: '', toolCalls: [call] }, 'none'] },
    });
    const { harness } = await createTestHarness({ model, plugins: [toolPlugin(executed)], scenario: { preActorDirector: true } });
    await harness.runTurn({ sessionId: 's', text: RAW_INPUT });
    expect(toolResults(model)).toEqual([
      { ok: true, result: { accepted: true } },
      { ok: false, error: { code: 'TOOL_DUPLICATE_CALL', message: expect.any(String) } },
    ]);
    await harness.runTurn({ sessionId: 's', text: 'again from now on' });
    expect(executed).toHaveLength(2);
  });

  it('stops after the round limit', async () => {
    const executed: unknown[] = [];
    const model = new ScriptedChatModel({ byStage: { director: [{ text: '', toolCalls: [{ id: 'x', name: 'roll_dice', arguments: {} }] }] } });
    const { harness } = await createTestHarness({
      model,
      plugins: [toolPlugin(executed)],
      scenario: { preActorDirector: true },
      director: { maxRounds: 3 },
    });
    const result = await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(model.callsFor('director')).toHaveLength(3);
    expect(result.events.some((event) => event.type === 'kernel/director-rounds-exhausted')).toBe(true);
  });

  it('skips the director unless the scenario enables it, and degrades when its model fails', async () => {
    const executed: unknown[] = [];
    const off = await createTestHarness({ plugins: [toolPlugin(executed)] });
    await off.harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(off.model.callsFor('director')).toHaveLength(0);

    const failing = new ScriptedChatModel({
      byStage: {
        director: [
          () => {
            throw new Error('control model down');
          },
        ],
      },
    });
    const on = await createTestHarness({ model: failing, plugins: [toolPlugin(executed)] });
    const result = await on.harness.runTurn({ sessionId: 's', text: 'hi', scenario: { preActorDirector: true } });
    expect(result.reply).toBe('echo: hi');
    expect(result.events.find((event) => event.type === 'kernel/director-degraded')?.data).toMatchObject({ error: { message: 'control model down' } });
  });

  it('refuses two plugins registering the same tool name', async () => {
    const { createHarness } = await import('@troupe/kernel');
    const { MemorySessionLog } = await import('@troupe/kernel/testing');
    const error = await createHarness({
      model: new ScriptedChatModel(),
      sessionLog: new MemorySessionLog(),
      plugins: [toolPlugin([]), testPlugin('copycat', (ctx) => toolPlugin([]).setup(ctx as never))],
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'KERNEL_TOOL_DUPLICATE' });
  });
});
