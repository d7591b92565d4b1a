import { execFileSync } from 'node:child_process';
import { type ChatModel, createModelRegistry } from '@troupe/kernel';
import { createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { LazyAbortController } from '../src/turn/lazy-abort-controller.js';
import { rejectionOf, testPlugin } from './helpers.js';

describe('a turn signal made on demand', () => {
  it('a signal read after the abort is already aborted with the same reason; a second abort changes nothing', () => {
    const early = new LazyAbortController();
    const reason = new Error('gone');
    early.abort(reason);
    early.abort(new Error('later'));
    expect(early.aborted).toBe(true);
    expect(early.signal.aborted).toBe(true);
    expect(early.signal.reason).toBe(reason);

    const late = new LazyAbortController();
    const { signal } = late;
    const seen: unknown[] = [];
    signal.addEventListener('abort', () => seen.push(signal.reason));
    late.abort();
    expect(late.reason).toBeInstanceOf(DOMException);
    expect((late.reason as DOMException).name).toBe('AbortError');
    expect(seen).toEqual([late.reason]);
    expect(late.signal).toBe(signal);
  });

  it('the actor and the handlers get the turn signal when they read it, and the caller aborting reaches them all', async () => {
    const caller = new AbortController();
    const reason = new Error('tab closed');
    const seen: { handler?: AbortSignal; model?: AbortSignal } = {};
    const plugin = testPlugin('listener', (ctx) => {
      ctx.hooks.preActor((_input, turn) => {
        seen.handler = turn.signal;
      });
    });
    const model: ChatModel = {
      id: 'waits',
      generate: (request) =>
        new Promise<never>((_resolve, reject) => {
          seen.model = request.signal;
          request.signal.addEventListener('abort', () => reject(request.signal.reason));
          setTimeout(() => caller.abort(reason), 5);
        }),
    };
    const { harness } = await createTestHarness({ plugins: [plugin], models: createModelRegistry(model) });
    expect(await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }, { signal: caller.signal }))).toBe(reason);
    expect(seen.model?.reason).toBe(reason);
    // The handler's own signal has detached from the turn once the handler finished (no listener left behind).
    expect(seen.handler?.aborted).toBe(false);
    await harness.close();
  });
});

describe('the turn-deadline wake-up on the system clock', () => {
  const run = (script: string) =>
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: new URL('..', import.meta.url),
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, NODE_OPTIONS: '' },
    }).trim();
  const boot = `
    const { createHarness } = await import('@troupe/kernel');
    const { MemorySessionLog } = await import('@troupe/kernel/testing');`;

  it('keeps the process alive while a turn waits on nothing else, so the turn reaches its deadline', () => {
    const script = `${boot}
      const harness = await createHarness({ model: { id: 'silent', generate: () => new Promise(() => {}) }, sessionLog: new MemorySessionLog(), turnDeadlineMs: 200 });
      try { await harness.runTurn({ sessionId: 's', text: 'hi' }); console.log('committed'); } catch (error) { console.log(error.code); }`;
    expect(run(script)).toBe('KERNEL_TURN_DEADLINE_EXCEEDED');
  });

  it('does not keep an idle harness’s process alive after its turns (default deadline of 10 minutes)', () => {
    const script = `${boot}
      const harness = await createHarness({ model: { id: 'quick', generate: async () => ({ text: 'ok' }) }, sessionLog: new MemorySessionLog() });
      for (let turn = 0; turn < 3; turn++) await harness.runTurn({ sessionId: 's', text: 'hi' });
      console.log('done');`;
    expect(run(script)).toBe('done');
  });
});
