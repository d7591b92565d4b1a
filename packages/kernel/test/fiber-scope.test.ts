import { describe, expect, it } from 'vitest';
import { FiberScope } from '../src/background/fiber-scope.js';
import { deferred, rejectionOf } from './helpers.js';

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// `run` hands work that is still pending after its probe to a fiber of the scope; the caller must
// resume from the work itself, before the fiber's own end is processed (a committed turn's
// postReview: the player waits on it), while close() can still interrupt it.
describe('FiberScope.run with work still pending after the probe', () => {
  it('resumes its caller with the value before the fiber ends; the scope counts the job until then', async () => {
    const scope = new FiberScope();
    const value = await scope.run(new AbortController(), async () => {
      await later(5);
      return 'done';
    });
    expect(value).toBe('done');
    expect(scope.size).toBe(1);
    await scope.idle();
    expect(scope.size).toBe(0);
    await scope.close(new Error('closed'));
  });

  it('rejects with the work’s own failure', async () => {
    const scope = new FiberScope();
    const failure = new Error('broken');
    const error = await rejectionOf(
      scope.run(new AbortController(), async () => {
        await later(5);
        throw failure;
      }),
    );
    expect(error).toBe(failure);
    await scope.idle();
    await scope.close(new Error('closed'));
  });

  it('is interrupted by close(): the controller aborts and the result rejects at once with the reason, even when the work ignores its signal', async () => {
    const scope = new FiberScope();
    const controller = new AbortController();
    const never = deferred<string>();
    const running = scope.run(controller, () => never.promise);
    await later(5);
    const reason = new Error('closing');
    await scope.close(reason);
    expect(await rejectionOf(running)).toBe(reason);
    expect(controller.signal.reason).toBe(reason);
    expect(scope.size).toBe(0);
  });
});
