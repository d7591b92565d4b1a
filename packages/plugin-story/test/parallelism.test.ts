import type { ChatModel, ChatRequest, ChatResponse } from '@troupe/kernel';
import { createTestHarness, MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { selectStoryWorkspace, StoryWorkspaces, storyPlugin } from '../src/index.js';
import { storyModel } from './helpers.js';

/** Holds every call of the gated stages until the test releases it; counts calls in flight. */
class GatedModel implements ChatModel {
  readonly id = 'gated';
  readonly inner = storyModel();
  readonly waiting: { stage: string; release: () => void }[] = [];
  maxInFlight = 0;
  inFlight = 0;
  constructor(readonly gated: ReadonlySet<string>) {}

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (this.gated.has(request.meta.stage)) {
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      await new Promise<void>((release) => this.waiting.push({ stage: request.meta.stage, release }));
      this.inFlight -= 1;
    }
    return this.inner.generate(request);
  }
}

const idle = async () => {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
};

async function fiveCharacterWorkspace(trees: MemoryTreeStore, maxParallel: number) {
  const workspaces = new StoryWorkspaces(trees);
  let ws = await workspaces.create('big', { name: 'Big', pipeline: { maxParallel } });
  for (const id of ['a', 'b', 'c', 'd', 'e']) ws = await workspaces.addCharacter('big', ws.revision, { id, name: id.toUpperCase() });
  for (const id of ['s1', 's2', 's3', 's4', 's5']) ws = await workspaces.addSection('big', ws.revision, { id, title: id, kind: 'prose' });
}

describe('bounded parallelism of same-stage work', () => {
  it('maxParallel = 2 with 5 characters and 5 sections: never more than 2 in flight, and calls really overlap', async () => {
    const trees = new MemoryTreeStore();
    await fiveCharacterWorkspace(trees, 2);
    const model = new GatedModel(new Set(['story/character', 'story/section']));
    const test = await createTestHarness({ trees, model: model as never, plugins: [storyPlugin()] });
    await selectStoryWorkspace(test.sessionLog, 's1', 'big');
    let done = false;
    const turn = test.harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' }).finally(() => {
      done = true;
    });
    const concurrentSeen: Record<string, number[]> = { 'story/character': [], 'story/section': [] };
    while (!done) {
      await idle();
      const next = model.waiting.shift();
      if (!next) continue;
      concurrentSeen[next.stage]?.push(model.waiting.length + 1);
      next.release();
    }
    await turn;
    expect(model.maxInFlight).toBe(2);
    expect(model.inner.callsFor('story/character')).toHaveLength(5);
    expect(model.inner.callsFor('story/section')).toHaveLength(5);
    // Overlap: at some release point two calls of the same stage were waiting at once.
    expect(Math.max(...(concurrentSeen['story/character'] ?? []))).toBe(2);
    expect(Math.max(...(concurrentSeen['story/section'] ?? []))).toBe(2);
  });

  it('maxParallel = 1 runs same-stage work strictly one at a time', async () => {
    const trees = new MemoryTreeStore();
    await fiveCharacterWorkspace(trees, 1);
    const model = new GatedModel(new Set(['story/character']));
    const test = await createTestHarness({ trees, model: model as never, plugins: [storyPlugin()] });
    await selectStoryWorkspace(test.sessionLog, 's1', 'big');
    let done = false;
    const turn = test.harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' }).finally(() => {
      done = true;
    });
    while (!done) {
      await idle();
      model.waiting.shift()?.release();
    }
    await turn;
    expect(model.maxInFlight).toBe(1);
    expect(model.inner.callsFor('story/character')).toHaveLength(5);
  });
});
