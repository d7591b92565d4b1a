import { createTestHarness } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { testPlugin } from './helpers.js';

// A handler hands `ctx.signal` to fetch or a model call, which adds an abort listener. With many
// parallel postReview handlers (or many director tools) Node warns past 10 listeners on one
// signal, so the kernel must not put every handler's listener on the same signal.

const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
afterEach(() => {
  process.off('warning', onWarning);
  warnings.length = 0;
});

describe('listeners on handler signals', () => {
  it('twenty parallel postReview handlers that each listen to ctx.signal cause no MaxListenersExceededWarning', async () => {
    process.on('warning', onWarning);
    let listened = 0;
    const { harness } = await createTestHarness({
      plugins: [
        testPlugin('many', (ctx) => {
          for (let i = 0; i < 20; i++) {
            ctx.hooks.postReview(async (_turn, turnCtx) => {
              const onAbort = () => undefined;
              turnCtx.signal.addEventListener('abort', onAbort, { once: true });
              listened++;
              // Still listening while the other handlers start.
              await new Promise((resolve) => setTimeout(resolve, 5));
              turnCtx.signal.removeEventListener('abort', onAbort);
            });
          }
        }),
      ],
    });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    await harness.close();
    // Node emits the warning on the next tick after the 11th listener.
    await new Promise((resolve) => setImmediate(resolve));
    expect(listened).toBe(20);
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
