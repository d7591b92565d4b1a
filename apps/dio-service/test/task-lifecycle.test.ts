import type { ChatModel } from '@troupe/kernel';
import { ManualClock, MemoryTreeStore } from '@troupe/kernel/testing';
import { offlineModel } from '@troupe/model-offline';
import { describe, expect, it } from 'vitest';
import { DioService } from '../src/dio-service.js';
import { DioStore } from '../src/dio-store.js';

const request = (turn: string, message = '从现在起莉娅都用短句回答。') => ({
  conversationId: 'dio_c1',
  requestId: `${turn}:dio`,
  messageId: `${turn}:dio:assistant`,
  userId: 'alice',
  rpConversationId: 'c1',
  targetPromptId: 'lia',
  message,
  language: 'zh',
});

const hanging: ChatModel = {
  id: 'hanging',
  generate: (call) =>
    new Promise((_resolve, reject) => {
      if (call.signal.aborted) reject(call.signal.reason);
      call.signal.addEventListener('abort', () => reject(call.signal.reason), { once: true });
    }),
};

async function serviceWith(model: ChatModel, clock = new ManualClock(), trees = new MemoryTreeStore()) {
  const service = new DioService({ store: new DioStore(trees), model, clock, taskTimeoutMs: 5_000 });
  await service.registerPrompt('lia', '你是莉娅。', '莉娅');
  return { service, clock, trees };
}

describe('task lifecycle', () => {
  it('processing → timed_out when compilation exceeds the task timeout; nothing is half-written', async () => {
    const { service, clock } = await serviceWith(hanging);
    await service.schedule('alice', request('t1'));
    expect((await service.task('alice', 't1:dio')).status).toBe('processing');
    await clock.advance(5_000);
    await service.idle();
    expect(await service.task('alice', 't1:dio')).toMatchObject({ status: 'timed_out', promptChanged: false, errorCode: 'TASK_TIMED_OUT' });
    expect(await service.requirements('alice', { userId: 'alice', rpConversationId: 'c1', targetPromptId: 'lia' })).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('processing → failed when storage fails during the task, with the error code', async () => {
    const { service, trees } = await serviceWith(offlineModel());
    // The acceptance reads the base prompt once; the task's second read fails.
    const original = trees.read.bind(trees);
    let reads = 0;
    trees.read = async (id) => {
      if (id.startsWith('prompt-') && ++reads > 1) throw Object.assign(new Error('disk gone'), { code: 'STORAGE_IO' });
      return original(id);
    };
    await service.schedule('alice', request('t2'));
    await service.idle();
    expect(await service.task('alice', 't2:dio')).toMatchObject({ status: 'failed', promptChanged: false, errorCode: 'STORAGE_IO' });
  });

  it('close() leaves running tasks processing, and resume() finishes them on the next start', async () => {
    const trees = new MemoryTreeStore();
    const first = await serviceWith(hanging, new ManualClock(), trees);
    await first.service.schedule('alice', request('t3'));
    await first.service.close();
    expect((await first.service.task('alice', 't3:dio')).status).toBe('processing');
    const second = new DioService({ store: new DioStore(trees), model: offlineModel() });
    expect(await second.resume()).toBe(1);
    await second.idle();
    expect(await second.task('alice', 't3:dio')).toMatchObject({ status: 'succeeded', promptChanged: true, sourceVersionId: 's1' });
  });

  it('concurrent requirements on one conversation are all kept (no lost update)', async () => {
    const { service } = await serviceWith(offlineModel());
    await Promise.all(Array.from({ length: 20 }, (_, index) => service.schedule('alice', request(`c${index}`, `要求 ${index}`))));
    await service.idle();
    const where = { userId: 'alice', rpConversationId: 'c1', targetPromptId: 'lia' };
    expect(await service.requirements('alice', where)).toHaveLength(20);
    const active = await service.activePrompt('alice', where);
    for (let index = 0; index < 20; index++) expect(active?.compiledPrompt).toContain(`要求 ${index}`);
    expect(active?.versionId).toBe('v20');
  });
});
