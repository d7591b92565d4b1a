import { ManualClock, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';

describe('ManualClock', () => {
  it('wakes sleepers in time order only when advanced', async () => {
    const clock = new ManualClock(0);
    const woke: string[] = [];
    void clock.sleep(300).then(() => woke.push('300'));
    void clock.sleep(100).then(() => woke.push('100'));
    await clock.advance(99);
    expect(woke).toEqual([]);
    await clock.advance(250);
    expect(woke).toEqual(['100', '300']);
    expect(clock.now()).toBe(349);
    expect(clock.pendingTimers).toBe(0);
  });

  it('steps a polling loop exactly, and cancels a sleep on abort', async () => {
    const clock = new ManualClock(0);
    const controller = new AbortController();
    const ticks: number[] = [];
    const loop = (async () => {
      for (;;) {
        await clock.sleep(1_000, controller.signal);
        ticks.push(clock.now());
      }
    })();
    await clock.advance(3_500);
    expect(ticks).toEqual([1_000, 2_000, 3_000]);
    controller.abort(new Error('stop'));
    await expect(loop).rejects.toThrow('stop');
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('ScriptedChatModel', () => {
  it('answers per stage in order, repeats the last answer, and records calls', async () => {
    const model = new ScriptedChatModel({ byStage: { actor: ['one', 'two'] } });
    const request = (stage: string) => ({ messages: [{ role: 'user' as const, content: 'q' }], signal: new AbortController().signal, meta: { stage, sessionId: 's', turnId: 't' } });
    const texts = [];
    for (let index = 0; index < 3; index++) texts.push((await model.generate(request('actor'))).text);
    expect(texts).toEqual(['one', 'two', 'two']);
    expect((await model.generate(request('story/editor'))).text).toBe('echo: q');
    expect(model.callsFor('actor')).toHaveLength(3);
  });
});
