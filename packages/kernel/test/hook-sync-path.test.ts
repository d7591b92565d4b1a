import type { Logger } from '@troupe/kernel';
import { createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { testPlugin } from './helpers.js';

// A handler that returns a non-promise is finished where it is called: the next handler of the
// hook runs in the same promise job, with no microtask hop (the kernel's per-handler cost).

/** Busy-waits (a synchronous handler that blocks the event loop). */
function blockFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning on purpose
  }
}

function warningsLogger(): { logger: Logger; warnings: { message: string; fields: Record<string, unknown> | undefined }[] } {
  const warnings: { message: string; fields: Record<string, unknown> | undefined }[] = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn: (message, fields) => warnings.push({ message, fields: fields as Record<string, unknown> | undefined }),
    error() {},
    child: () => logger,
  };
  return { logger, warnings };
}

describe('synchronous handlers', () => {
  it('run back to back in one promise job in every hook; a handler that returns a promise is still waited for', async () => {
    // Each handler queues a microtask; a sync handler after it in the same hook must run before it.
    const seen: string[] = [];
    let microtaskRan = false;
    const probe = (label: string) => () => {
      seen.push(`${label}:${microtaskRan ? 'after' : 'same-job'}`);
      microtaskRan = false;
      queueMicrotask(() => {
        microtaskRan = true;
      });
    };
    const sync = testPlugin('sync', (ctx) => {
      ctx.hooks.preActor(probe('preActor-1'));
      ctx.hooks.preActor(probe('preActor-2'));
      ctx.hooks.actorAssemble(probe('assemble-1'));
      ctx.hooks.actorAssemble(probe('assemble-2'));
      ctx.hooks.review(probe('review-1'));
      ctx.hooks.review(probe('review-2'));
      ctx.hooks.postReview(probe('post-1'));
      ctx.hooks.postReview(probe('post-2'));
    });
    let asyncDone = false;
    const waiting = testPlugin('waiting', (ctx) => {
      ctx.hooks.review({
        order: 'post',
        handler: async (reply) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          asyncDone = true;
          return { text: `${reply.text}!` };
        },
      });
    });
    const { harness } = await createTestHarness({ plugins: [sync, waiting] });
    const result = await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(asyncDone).toBe(true);
    expect(result.reply).toBe('echo: hi!');
    // The first handler of each hook may follow a job boundary; each second one runs in its job.
    expect(seen.filter((entry) => entry.includes('-2:'))).toEqual(['preActor-2:same-job', 'assemble-2:same-job', 'review-2:same-job', 'post-2:same-job']);
    await harness.close();
  });

  it('a waterfall passes each synchronous result on, skipping undefined and degraded handlers', async () => {
    const plugin = testPlugin('chain', (ctx) => {
      ctx.hooks.review((reply) => ({ text: `${reply.text} a` }));
      ctx.hooks.review(() => undefined);
      ctx.hooks.review({
        degradable: true,
        handler: () => {
          throw new Error('soft');
        },
      });
      ctx.hooks.review((reply) => ({ text: `${reply.text} b` }));
    });
    const { harness } = await createTestHarness({ plugins: [plugin] });
    const result = await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(result.reply).toBe('echo: hi a b');
    expect(result.events.filter((event) => event.type === 'kernel/hook-degraded').map((event) => event.data)).toEqual([
      expect.objectContaining({ plugin: 'chain', hook: 'review', code: 'KERNEL_HOOK_FAILED' }),
    ]);
    await harness.close();
  });

  it('a blocking synchronous handler gets the slow warning, naming it and not its quick neighbours', async () => {
    const { logger, warnings } = warningsLogger();
    const quick = testPlugin('quick', (ctx) => {
      ctx.hooks.postReview(() => {});
      ctx.hooks.preActor(() => {});
    });
    const blocking = testPlugin('blocking', (ctx) => {
      ctx.hooks.postReview(() => blockFor(250));
      ctx.hooks.preActor(() => blockFor(250));
    });
    const after = testPlugin('after', (ctx) => {
      ctx.hooks.postReview(() => {});
      ctx.hooks.preActor(() => {});
    });
    const { harness } = await createTestHarness({ plugins: [quick, blocking, after], logger, slowHookWarningMs: 200 });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(warnings.map(({ message, fields }) => `${message} (${String(fields?.plugin)})`)).toEqual([
      'preActor handler is slow (blocking)',
      'postReview handler is slow (blocking)',
    ]);
    expect(warnings.every(({ fields }) => (fields?.elapsedMs as number) >= 250)).toBe(true);
    await harness.close();
  });

  it('postReview failures come back in handler order, whether the handlers threw at once or later', async () => {
    const plugin = testPlugin('failing', (ctx) => {
      ctx.hooks.postReview(async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new Error('late');
      });
      ctx.hooks.postReview(() => {
        throw new Error('at once');
      });
      ctx.hooks.postReview(() => {});
    });
    const { harness } = await createTestHarness({ plugins: [plugin] });
    const result = await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(result.postReviewErrors.map((error) => error.message)).toEqual([
      'Plugin "failing" failed in postReview: late',
      'Plugin "failing" failed in postReview: at once',
    ]);
    expect(result.events.filter((event) => event.type === 'kernel/post-review-failed')).toHaveLength(2);
    await harness.close();
  });
});
