import type { ChatModel, LogFields, Logger } from '@troupe/kernel';
import { ManualClock, MemoryTreeStore } from '@troupe/kernel/testing';
import { offlineModel } from '@troupe/model-offline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

/** A logger that keeps every line. */
function recordingLogger(lines: Array<{ level: string; message: string; fields: LogFields }> = []): Logger & { lines: typeof lines } {
  const at = (level: string) => (message: string, fields: LogFields = {}) => void lines.push({ level, message, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => recordingLogger(lines) };
}

/** Makes every write of a task record fail (the disk is full), from now on. */
function failTaskWrites(trees: MemoryTreeStore): void {
  const commit = trees.commit.bind(trees);
  trees.commit = async (id, change) => {
    if (id.startsWith('task-')) throw Object.assign(new Error('disk full'), { code: 'STORAGE_IO' });
    return commit(id, change);
  };
}

// A storage failure while recording a status must never become an unhandled rejection.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

async function serviceWith(model: ChatModel, clock = new ManualClock(), trees = new MemoryTreeStore(), logger?: Logger) {
  const service = new DioService({ store: new DioStore(trees), model, clock, taskTimeoutMs: 5_000, ...(logger ? { logger } : {}) });
  await service.registerPrompt('lia', '你是莉娅。', '莉娅');
  return { service, clock, trees };
}

/** Holds every write of a conversation record until `release()`: the task is then storing its version. */
function holdConversationWrites(trees: MemoryTreeStore): { reached: Promise<void>; release: () => void } {
  const create = trees.create.bind(trees);
  const commit = trees.commit.bind(trees);
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held = async (id: string) => {
    if (!id.startsWith('conv-')) return;
    reach();
    await gate;
  };
  trees.create = async (id, files) => {
    await held(id);
    return create(id, files);
  };
  trees.commit = async (id, change) => {
    await held(id);
    return commit(id, change);
  };
  return { reached, release };
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

  it('a storage failure while recording timed_out is logged, not unhandled; the task stays processing and the next start finishes it', async () => {
    const logger = recordingLogger();
    const { service, clock, trees } = await serviceWith(hanging, new ManualClock(), new MemoryTreeStore(), logger);
    await service.schedule('alice', request('t5'));
    failTaskWrites(trees);
    await clock.advance(5_000);
    await service.idle();
    await new Promise((resolve) => setTimeout(resolve, 20)); // let Node report unhandled rejections
    expect(unhandled).toEqual([]);
    const errors = logger.lines.filter((line) => line.level === 'error');
    expect(errors.map((line) => line.message)).toEqual(['could not record the task status; the task stays processing and is run again on the next start']);
    expect(errors[0]?.fields).toMatchObject({ requestId: 't5:dio', status: 'timed_out', error: { code: 'STORAGE_IO' } });
    expect((await service.task('alice', 't5:dio')).status).toBe('processing');
    expect(clock.pendingTimers).toBe(0);
    // Next start, storage healthy again: the task is resumed and finishes.
    const restarted = new DioService({ store: new DioStore(trees), model: offlineModel() });
    (trees as { commit: unknown }).commit = MemoryTreeStore.prototype.commit.bind(trees);
    expect(await restarted.resume()).toBe(1);
    await restarted.idle();
    expect(await restarted.task('alice', 't5:dio')).toMatchObject({ status: 'succeeded', promptChanged: true, sourceVersionId: 's1' });
  });

  it('a storage failure while recording succeeded keeps the work; the re-run reports the same version (promptChanged true), not a duplicate', async () => {
    const logger = recordingLogger();
    const { service, trees } = await serviceWith(offlineModel(), new ManualClock(), new MemoryTreeStore(), logger);
    const commit = trees.commit.bind(trees);
    let taskWrites = 0;
    trees.commit = async (id, change) => {
      // The acceptance's write is a create; the first commit of the task is its terminal status.
      if (id.startsWith('task-') && ++taskWrites === 1) throw Object.assign(new Error('disk full'), { code: 'STORAGE_IO' });
      return commit(id, change);
    };
    await service.schedule('alice', request('t6'));
    await service.idle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled).toEqual([]);
    expect(logger.lines.filter((line) => line.level === 'error')[0]?.fields).toMatchObject({ requestId: 't6:dio', status: 'succeeded' });
    expect((await service.task('alice', 't6:dio')).status).toBe('processing');
    const first = await service.activePrompt('alice', { userId: 'alice', rpConversationId: 'c1', targetPromptId: 'lia' });
    expect(await service.resume()).toBe(1);
    await service.idle();
    expect(await service.task('alice', 't6:dio')).toMatchObject({ status: 'succeeded', promptChanged: true, sourceVersionId: first?.sourceVersionId, compiledPromptSha256: first?.compiledPromptSha256 });
    const where = { userId: 'alice', rpConversationId: 'c1', targetPromptId: 'lia' };
    expect(await service.requirements('alice', where)).toHaveLength(1);
    expect((await service.activePrompt('alice', where))?.versionId).toBe('v1');
  });

  it('a compile that finishes late (its version was being stored when the timeout came) is recorded as succeeded', async () => {
    const trees = new MemoryTreeStore();
    const { service, clock } = await serviceWith(offlineModel(), new ManualClock(), trees);
    const held = holdConversationWrites(trees);
    await service.schedule('alice', request('t7'));
    await held.reached;
    await clock.advance(5_000); // the timeout fires while the version is being stored
    expect((await service.task('alice', 't7:dio')).status).toBe('processing');
    held.release();
    await service.idle();
    const where = { userId: 'alice', rpConversationId: 'c1', targetPromptId: 'lia' };
    const active = await service.activePrompt('alice', where);
    expect(active?.versionId).toBe('v1');
    expect(await service.task('alice', 't7:dio')).toMatchObject({ status: 'succeeded', promptChanged: true, sourceVersionId: active?.sourceVersionId });
    expect(clock.pendingTimers).toBe(0);
  });

  it('close() drains a task that is storing its version: it finishes and is recorded before close resolves', async () => {
    const trees = new MemoryTreeStore();
    const { service } = await serviceWith(offlineModel(), new ManualClock(), trees);
    const held = holdConversationWrites(trees);
    await service.schedule('alice', request('t8'));
    await held.reached;
    const closing = service.close();
    held.release();
    await closing;
    expect(await service.task('alice', 't8:dio')).toMatchObject({ status: 'succeeded', promptChanged: true });
  });

  it('close() interrupts a task whose work ignores its signal once the grace period is over; it stays processing and nothing is left scheduled', async () => {
    const clock = new ManualClock();
    const trees = new MemoryTreeStore();
    const service = new DioService({ store: new DioStore(trees), model: offlineModel(), clock, taskTimeoutMs: 60_000, shutdownGraceMs: 2_000 });
    await service.registerPrompt('lia', '你是莉娅。', '莉娅');
    // A storage write that never returns (and takes no signal): the task cannot stop by itself.
    const held = holdConversationWrites(trees);
    await service.schedule('alice', request('t9'));
    await held.reached;
    let closed = false;
    const closing = service.close().then(() => {
      closed = true;
    });
    await clock.advance(1_000);
    expect(closed).toBe(false); // within the grace period: the task may yet finish
    await clock.advance(1_000);
    await closing;
    expect(service.load).toEqual({ compiling: 0, queued: 0 });
    expect((await service.task('alice', 't9:dio')).status).toBe('processing');
    expect(clock.pendingTimers).toBe(0);
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
