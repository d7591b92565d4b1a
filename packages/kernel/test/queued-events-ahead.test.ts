import { KernelStorageError } from '@troupe/kernel';
import { createTestHarness, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { rejectionOf, testPlugin } from './helpers.js';

// A turn's queued events are serialised while the turn waits for a model, so the commit right
// after the actor's reply (a wake-up, where code runs slowest) finds their text already written.
describe('queued events are serialised while the turn waits', () => {
  it('the data text of an event queued before the actor is written before the actor answers, and is what the log stores', async () => {
    const seen: string[] = [];
    // `toJSON` runs exactly when the event's data is serialised.
    const data = { note: 'drafted', toJSON: () => {
        seen.push('serialised');
        return { note: 'drafted' };
      } };
    const plugin = testPlugin('ahead', (ctx) => {
      ctx.hooks.preActor((_input, turn) => turn.events.append('ahead/drafted', data));
    });
    const slowActor = async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen.push('actor answered');
      return 'reply';
    };
    const model = new ScriptedChatModel({ byStage: { actor: [slowActor] } });
    const { harness, sessionLog } = await createTestHarness({ model, plugins: [plugin] });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(seen).toEqual(['serialised', 'actor answered']);
    const stored = (await sessionLog.read('s')).find((event) => event.type === 'ahead/drafted');
    expect(stored?.data).toEqual({ note: 'drafted' });
    await harness.close();
  });

  it('data that cannot be serialised still fails the commit with the log’s own error, and nothing is stored', async () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const plugin = testPlugin('cyclic', (ctx) => {
      ctx.hooks.preActor((_input, turn) => turn.events.append('cyclic/data', cyclic));
    });
    const slowActor = async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'reply';
    };
    const model = new ScriptedChatModel({ byStage: { actor: [slowActor] } });
    const { harness, sessionLog } = await createTestHarness({ model, plugins: [plugin] });
    const error = await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }));
    expect(error).toBeInstanceOf(KernelStorageError);
    expect((error as KernelStorageError).code).toBe('SESSION_INVALID_EVENT');
    expect((await sessionLog.read('s')).filter((event) => event.type === 'kernel/turn-committed')).toEqual([]);
    await harness.close();
  });
});
