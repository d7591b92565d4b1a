import { type ChatModel, type ChatRequest, defineDirectorTool } from '@troupe/kernel';
import { createTestHarness, type ScriptedAnswer, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { rejectionOf, testPlugin } from './helpers.js';

const RAW_INPUT = '从现在起莉娅都用短句回答，少用比喻。';
const SCHEDULE = '{"tool": "schedule_dio", "arguments": {}}';
const NO_TOOL = '{"tool": null}';

function toolPlugin(executed: unknown[]) {
  return testPlugin('dio-like', (ctx) => {
    ctx.registerTool(
      defineDirectorTool({
        name: 'schedule_dio',
        description: 'Record a lasting requirement',
        parameters: z.object({ note: z.string().max(20).optional() }).strict(),
        oncePerTurn: true,
        execute: async (params, turn) => {
          executed.push({ params, input: turn.input });
          turn.events.append('dio/scheduled', { requestId: `${turn.turnId}:dio` });
          return { accepted: true };
        },
      }),
    );
    ctx.registerTool(defineDirectorTool({ name: 'roll_dice', description: 'Roll dice', parameters: z.object({}), execute: async () => ({ rolled: 4 }) }));
  });
}

function httpError(status: number, message: string): Error {
  return Object.assign(new Error(message), { status });
}

/** A scripted model for the director stage; `capabilities` when given. */
function directorModel(answers: readonly ScriptedAnswer[], capabilities?: ChatModel['capabilities']): ScriptedChatModel {
  const model = new ScriptedChatModel({ byStage: { director: answers } });
  return capabilities ? Object.assign(model, { capabilities }) : model;
}

/** A server that answers 400 to any request carrying `tools`, and `answer` otherwise. */
function rejectingTools(status: number, answers: readonly string[]): ScriptedChatModel {
  let next = 0;
  return directorModel([
    (request: ChatRequest) => {
      if (request.tools?.length) throw httpError(status, `HTTP ${status}: "tools" is not supported by this server`);
      return answers[Math.min(next++, answers.length - 1)] ?? NO_TOOL;
    },
  ]);
}

async function play(model: ScriptedChatModel, executed: unknown[], text = RAW_INPUT, scenario: { tools?: string[] } = {}) {
  const { harness } = await createTestHarness({ model, plugins: [toolPlugin(executed)], scenario: { preActorDirector: true, ...scenario } });
  return { harness, result: await harness.runTurn({ sessionId: 's', text }) };
}

const types = (events: readonly { type: string }[]) => events.map((event) => event.type);

describe('director on models without tool calling: a JSON decision round', () => {
  it('a model that says it has no tools is asked for JSON; the decision runs with the raw input and the same event trail', async () => {
    const executed: unknown[] = [];
    const model = directorModel([`<think>The player wants this to hold.</think>\n\`\`\`json\n{"tool": "schedule_dio", "arguments": {"note": "short"}}\n\`\`\``, NO_TOOL], { tools: false });
    const { result } = await play(model, executed);
    expect(executed).toEqual([{ params: { note: 'short' }, input: RAW_INPUT }]);
    const calls = model.callsFor('director');
    expect(calls).toHaveLength(2);
    expect(calls.every((call) => call.tools === undefined && call.json !== undefined)).toBe(true);
    expect(calls[0]?.messages[0]?.content).toContain('Available tools:\n- schedule_dio: Record a lasting requirement');
    expect(calls[1]?.messages.at(-1)?.content).toContain('Result of schedule_dio: {"ok":true,"result":{"accepted":true}}');
    expect(types(result.events)).toEqual(['kernel/director-json-fallback', 'dio/scheduled', 'kernel/tool-called', 'kernel/turn-committed']);
    expect(result.events[0]?.data).toEqual({ reason: 'capability', model: 'scripted' });
    expect(result.events[2]?.data).toEqual({ round: 0, tool: 'schedule_dio', ok: true });
  });

  it.each([400, 500])('a server that answers %i to `tools` falls back at once, and later turns go straight to JSON', async (status) => {
    const executed: unknown[] = [];
    const model = rejectingTools(status, [SCHEDULE, NO_TOOL]);
    const { harness, result } = await play(model, executed);
    expect(executed).toHaveLength(1);
    expect(result.events.find((event) => event.type === 'kernel/director-json-fallback')?.data).toEqual({ reason: 'rejected', model: 'scripted', status });
    expect(model.callsFor('director').map((call) => call.tools !== undefined)).toEqual([true, false, false]);
    await harness.runTurn({ sessionId: 's', text: '你好' });
    // remembered: the next turn does not send `tools` again
    expect(model.callsFor('director').slice(3).every((call) => call.tools === undefined)).toBe(true);
  });

  it.each([
    [500, 'CUDA error: out of memory'],
    [400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."],
  ])('a %i that does not name tools falls back for that turn only: the next turn offers tools again', async (status, message) => {
    const executed: unknown[] = [];
    let failures = 1;
    const model = directorModel([
      (request: ChatRequest) => {
        if (request.tools?.length && failures-- > 0) throw httpError(status, message);
        return request.tools?.length ? '' : NO_TOOL;
      },
    ]);
    const { harness, result } = await play(model, executed);
    expect(result.events.find((event) => event.type === 'kernel/director-json-fallback')?.data).toEqual({ reason: 'rejected', model: 'scripted', status });
    await harness.runTurn({ sessionId: 's', text: '你好' });
    const calls = model.callsFor('director');
    // Turn 1: tools (refused), then JSON; turn 2: tools again, answered.
    expect(calls.map((call) => call.tools !== undefined)).toEqual([true, false, true]);
  });

  it('a server that ignores `tools` (the model names the tool in text) gets a JSON round the same turn', async () => {
    const executed: unknown[] = [];
    const model = directorModel(['I would use schedule_dio for this.', SCHEDULE, NO_TOOL]);
    const { result } = await play(model, executed);
    expect(executed).toHaveLength(1);
    expect(result.events.find((event) => event.type === 'kernel/director-json-fallback')?.data).toEqual({ reason: 'ignored', model: 'scripted' });
    // the tool-mode prompt names the tools, so a model behind such a server knows them
    expect(model.callsFor('director')[0]?.messages[0]?.content).toContain('Your tools: schedule_dio (Record a lasting requirement)');
  });

  it('"none" from a model with tools is no fallback', async () => {
    const executed: unknown[] = [];
    const model = directorModel(['none']);
    const { result } = await play(model, executed, '你好');
    expect(model.callsFor('director')).toHaveLength(1);
    expect(types(result.events)).toEqual(['kernel/turn-committed']);
  });

  it.each([
    ['an unknown tool', '{"tool": "delete_world"}', {}, 'TOOL_UNKNOWN'],
    ['a tool not available in this scenario', SCHEDULE, { tools: ['roll_dice'] }, 'TOOL_NOT_ENABLED'],
    ['invalid parameters', '{"tool": "schedule_dio", "arguments": {"note": 42}}', {}, 'TOOL_INVALID_ARGUMENTS'],
  ])('the same checks as the tool loop: %s', async (_label, decision, scenario, code) => {
    const executed: unknown[] = [];
    const model = directorModel([decision, NO_TOOL], { tools: false });
    const { result } = await play(model, executed, RAW_INPUT, scenario);
    expect(executed).toEqual([]);
    expect(result.events.find((event) => event.type === 'kernel/tool-called')?.data).toMatchObject({ ok: false, error: { code } });
    expect(model.callsFor('director')[1]?.messages.at(-1)?.content).toContain(`"code":"${code}"`);
  });

  it('once per turn: a second decision for the same tool is refused', async () => {
    const executed: unknown[] = [];
    const model = directorModel([SCHEDULE, SCHEDULE, NO_TOOL], { tools: false });
    const { result } = await play(model, executed);
    expect(executed).toHaveLength(1);
    expect(result.events.filter((event) => event.type === 'kernel/tool-called').map((event) => event.data)).toEqual([
      { round: 0, tool: 'schedule_dio', ok: true },
      { round: 1, tool: 'schedule_dio', ok: false, error: { code: 'TOOL_DUPLICATE_CALL', message: expect.any(String) } },
    ]);
  });

  it('a server that refuses `response_format` is asked again as plain text', async () => {
    const executed: unknown[] = [];
    const model = directorModel(
      [
        (request: ChatRequest) => {
          if (request.json) throw httpError(400, 'response_format is not supported');
          return `Sure: ${SCHEDULE}`;
        },
      ],
      { tools: false },
    );
    await play(model, executed);
    expect(executed).toHaveLength(1);
  });

  it('when no decision can be had, kernel/director-tools-unavailable says so and the turn still answers', async () => {
    const executed: unknown[] = [];
    const invalid = await play(directorModel(['I am not sure.'], { tools: false }), executed);
    expect(invalid.result.reply).toBe(`echo: ${RAW_INPUT}`);
    expect(invalid.result.events.find((event) => event.type === 'kernel/director-tools-unavailable')?.data).toEqual({
      reason: 'decision-invalid',
      model: 'scripted',
      tools: ['schedule_dio', 'roll_dice'],
      problem: 'the answer holds no JSON object',
    });
    const failing = await play(rejectingTools(400, []), executed);
    const down = directorModel([() => Promise.reject(new Error('connection reset'))], { tools: false });
    const failed = await play(down, executed);
    expect(failed.result.events.find((event) => event.type === 'kernel/director-tools-unavailable')?.data).toMatchObject({ reason: 'model-failed', error: { message: 'connection reset' } });
    expect(executed).toEqual([]);
    expect(types(failing.result.events)).toContain('kernel/director-json-fallback');
  });

  it('cancellation during a JSON round rejects the turn, never degrades', async () => {
    const controller = new AbortController();
    const model = directorModel(
      [
        () => {
          controller.abort(new Error('player left'));
          return SCHEDULE;
        },
      ],
      { tools: false },
    );
    const executed: unknown[] = [];
    const { harness } = await createTestHarness({ model, plugins: [toolPlugin(executed)], scenario: { preActorDirector: true } });
    const error = await rejectionOf(harness.runTurn({ sessionId: 's', text: RAW_INPUT }, { signal: controller.signal }));
    expect((error as Error).message).toBe('player left');
    expect(executed).toEqual([]);
  });
});
