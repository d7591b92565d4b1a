import { KernelError, type Logger } from '@troupe/kernel';
import { createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { rejectionOf, testPlugin } from './helpers.js';

describe('hook errors', () => {
  it('wraps a fatal handler error with plugin, hook and code, and records the failure', async () => {
    const boom = new Error('disk on fire');
    const plugin = testPlugin('burner', (ctx) => {
      ctx.hooks.preActor(() => {
        throw boom;
      });
    });
    const { harness, sessionLog, model } = await createTestHarness({ plugins: [plugin] });
    const error = await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }));
    expect(KernelError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'KERNEL_HOOK_FAILED', plugin: 'burner', hook: 'preActor', cause: boom });
    expect((error as Error).message).toContain('disk on fire');
    expect(model.callsFor('actor')).toHaveLength(0);
    const events = await sessionLog.read('s');
    expect(events.map((event) => event.type)).toEqual(['kernel/turn-failed']);
    expect(events[0]?.data).toMatchObject({ plugin: 'burner', hook: 'preActor' });
  });

  it('turns non-Error throws into errors', async () => {
    const plugin = testPlugin('stringly', (ctx) => {
      ctx.hooks.review(() => {
        throw 'nope';
      });
    });
    const { harness } = await createTestHarness({ plugins: [plugin] });
    const error = (await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }))) as KernelError;
    expect(error.code).toBe('KERNEL_HOOK_FAILED');
    expect(error.message).toContain('nope');
  });

  it('degrades a degradable handler: event, then the turn goes on', async () => {
    const plugin = testPlugin('optional', (ctx) => {
      ctx.hooks.preActor({
        degradable: true,
        handler: () => {
          throw new Error('lookup failed');
        },
      });
    });
    const { harness } = await createTestHarness({ plugins: [plugin] });
    const result = await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(result.reply).toBe('echo: hi');
    const degraded = result.events.find((event) => event.type === 'kernel/hook-degraded');
    expect(degraded?.data).toMatchObject({ plugin: 'optional', hook: 'preActor', code: 'KERNEL_HOOK_FAILED', error: { message: 'lookup failed' } });
  });

  it('times a hook out with KERNEL_HOOK_TIMEOUT and aborts the handler signal', async () => {
    let handlerSignal: AbortSignal | undefined;
    const plugin = testPlugin('sleepy', (ctx) => {
      ctx.hooks.actorAssemble({
        timeoutMs: 20,
        handler: (_prepared, turn) =>
          new Promise(() => {
            handlerSignal = turn.signal;
          }),
      });
    });
    const { harness } = await createTestHarness({ plugins: [plugin] });
    const error = (await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }))) as KernelError;
    expect(error).toMatchObject({ code: 'KERNEL_HOOK_TIMEOUT', plugin: 'sleepy', hook: 'actorAssemble' });
    expect(handlerSignal?.aborted).toBe(true);
    expect(handlerSignal?.reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('degrades a degradable handler that times out', async () => {
    const plugin = testPlugin('sleepy', (ctx) => {
      ctx.hooks.preActor({ timeoutMs: 10, degradable: true, handler: () => new Promise(() => {}) });
    });
    const { harness } = await createTestHarness({ plugins: [plugin] });
    const result = await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(result.events.find((event) => event.type === 'kernel/hook-degraded')?.data).toMatchObject({ code: 'KERNEL_HOOK_TIMEOUT' });
  });

  it('warns once about a slow handler', async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      debug() {},
      info() {},
      warn: (message) => warnings.push(message),
      error() {},
      child: () => logger,
    };
    const plugin = testPlugin('slow', (ctx) => {
      ctx.hooks.preActor(() => new Promise((resolve) => setTimeout(resolve, 40)));
    });
    const { harness } = await createTestHarness({ plugins: [plugin], logger, slowHookWarningMs: 5 });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(warnings).toEqual(['preActor handler is slow']);
  });

  it('wraps actor model failures as KERNEL_MODEL_FAILED', async () => {
    const { ScriptedChatModel } = await import('@troupe/kernel/testing');
    const model = new ScriptedChatModel({
      byStage: {
        actor: [
          () => {
            throw new Error('502 from upstream');
          },
        ],
      },
    });
    const { harness } = await createTestHarness({ model });
    const error = (await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }))) as KernelError;
    expect(error.code).toBe('KERNEL_MODEL_FAILED');
    expect(error.message).toContain('502 from upstream');
  });

  it('rejects invalid turn input with every bad field named', async () => {
    const { harness } = await createTestHarness();
    const error = (await rejectionOf(harness.runTurn({ sessionId: '../etc', text: '' }))) as KernelError;
    expect(error.code).toBe('KERNEL_TURN_INPUT_INVALID');
    expect(error.message).toContain('sessionId');
    expect(error.message).toContain('text');
  });
});
