import type { ChatModel, ChatRequest } from '@troupe/kernel';
import { ManualClock, MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { DioService } from '../src/dio-service.js';
import { DioStore } from '../src/dio-store.js';

const request = (n: number) => ({
  conversationId: `dio_c${n}`,
  requestId: `t${n}:dio`,
  messageId: `t${n}:dio:assistant`,
  userId: 'alice',
  rpConversationId: `c${n}`,
  targetPromptId: 'lia',
  message: '从现在起莉娅都用短句回答。',
  language: 'zh',
});

/** A compiling model that holds every call until `release()`, counting calls in flight. */
function gatedModel() {
  const waiting: Array<() => void> = [];
  const stats = { inFlight: 0, maxInFlight: 0, calls: 0 };
  const model: ChatModel = {
    id: 'gated',
    generate: async (call: ChatRequest) => {
      stats.calls += 1;
      stats.inFlight += 1;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      try {
        await new Promise<void>((resolve, reject) => {
          waiting.push(resolve);
          call.signal.addEventListener('abort', () => reject(call.signal.reason), { once: true });
        });
        return { text: String(call.messages.at(-1)?.content ?? '') };
      } finally {
        stats.inFlight -= 1;
      }
    },
  };
  const release = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  return { model, stats, release };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('compile concurrency', () => {
  it('300 schedules → at most maxConcurrentCompiles model calls at once; queued tasks stay processing, then all succeed', async () => {
    const { model, stats, release } = gatedModel();
    const service = new DioService({ store: new DioStore(new MemoryTreeStore()), model, clock: new ManualClock(), maxConcurrentCompiles: 3 });
    await service.registerPrompt('lia', '你是莉娅。', '莉娅');
    for (let n = 0; n < 300; n++) await service.schedule('alice', request(n));
    await settle();
    expect(stats.inFlight).toBe(3);
    expect(service.load).toEqual({ compiling: 3, queued: 297 });
    expect((await service.task('alice', 't299:dio')).status).toBe('processing');
    while (stats.calls < 300 || stats.inFlight > 0) {
      release();
      await settle();
    }
    await service.idle();
    expect(stats.maxInFlight).toBe(3);
    expect(await service.task('alice', 't299:dio')).toMatchObject({ status: 'succeeded', promptChanged: true });
    expect(service.load).toEqual({ compiling: 0, queued: 0 });
  }, 60_000); // 300 schedules through the real service: seconds on a machine shared with the whole test run

  it('shutting down with tasks queued leaves them processing for the next start', async () => {
    const { model } = gatedModel();
    const trees = new MemoryTreeStore();
    const service = new DioService({ store: new DioStore(trees), model, clock: new ManualClock(), maxConcurrentCompiles: 1 });
    await service.registerPrompt('lia', '你是莉娅。', '莉娅');
    for (let n = 0; n < 3; n++) await service.schedule('alice', request(n));
    await settle();
    await service.close();
    for (let n = 0; n < 3; n++) expect((await service.task('alice', `t${n}:dio`)).status).toBe('processing');
    expect(service.load).toEqual({ compiling: 0, queued: 0 });
  });
});
