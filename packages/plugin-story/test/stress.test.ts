import type { ChatModel, ChatRequest, ChatResponse } from '@troupe/kernel';
import { createTestHarness, MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { selectStoryWorkspace, STORY_EVENTS, StoryWorkspaces, storyPlugin } from '../src/index.js';
import { storyModel } from './helpers.js';

/** Random (seeded) failures and delays; counts same-stage calls in flight. */
class ChaosModel implements ChatModel {
  readonly id = 'chaos';
  readonly inner = storyModel();
  readonly inFlight = new Map<string, number>();
  maxInFlight = 0;
  #state: number;
  constructor(seed: number) {
    this.#state = seed;
  }
  random(n: number): number {
    this.#state = (this.#state * 1103515245 + 12345) % 2147483648;
    return this.#state % n;
  }
  async generate(request: ChatRequest): Promise<ChatResponse> {
    const stage = request.meta.stage;
    const now = (this.inFlight.get(stage) ?? 0) + 1;
    this.inFlight.set(stage, now);
    this.maxInFlight = Math.max(this.maxInFlight, now);
    try {
      for (let i = this.random(5); i > 0; i--) await new Promise((resolve) => setImmediate(resolve));
      if (stage !== 'actor' && this.random(5) === 0) throw new Error('chaos');
      return await this.inner.generate(request);
    } finally {
      this.inFlight.set(stage, (this.inFlight.get(stage) ?? 1) - 1);
    }
  }
}

// 20 random shapes by default; STRESS=1 runs 200.
const RUNS = process.env.STRESS === '1' ? 200 : 20;

describe('stress: random failures and shapes', () => {
  it(`${RUNS} turns: never over maxParallel, the turn always completes, and settlements never duplicate`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const model = new ChaosModel(run + 1);
      const characters = 1 + model.random(8);
      const sections = 1 + model.random(5);
      const maxParallel = 1 + model.random(8);
      const trees = new MemoryTreeStore();
      const workspaces = new StoryWorkspaces(trees);
      let ws = await workspaces.create('w', { name: 'W', pipeline: { maxParallel } });
      for (let i = 0; i < characters; i++) ws = await workspaces.addCharacter('w', ws.revision, { id: `c${i}`, name: `C${i}` });
      for (let i = 0; i < sections; i++) ws = await workspaces.addSection('w', ws.revision, { id: `s${i}`, title: `S${i}`, kind: 'prose' });
      const test = await createTestHarness({ trees, model: model as never, plugins: [storyPlugin()] });
      await selectStoryWorkspace(test.sessionLog, 's1', 'w');
      const result = await test.harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
      await test.harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
      expect(model.maxInFlight).toBeLessThanOrEqual(maxParallel);
      const types = result.events.map((e) => e.type);
      expect(types.includes(STORY_EVENTS.draftPrepared) || types.includes(STORY_EVENTS.degraded)).toBe(true);
      const history = (await trees.read('w')).files['history.md'] ?? '';
      expect((history.match(/troupe:settle story:t1/g) ?? []).length).toBe(1);
    }
  });
});
