import { type ChatRequest, KernelError, Tokens, type TreeStore } from '@troupe/kernel';
import { inject, injectable } from '@troupe/kernel/di';
import { createTestHarness, MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { selectStoryWorkspace, SourceIndexCache, STORY_EVENTS, StoryTokens, storyPlugin, type WebSearchProvider } from '../src/index.js';
import type { StorySettings } from '../src/plugin-config.js';
import { requestText, seedWorkspace, storyModel } from './helpers.js';

const researchRequest = (requests: readonly ChatRequest[]) => requests.find((request) => request.meta.stage === 'story/research');

describe('the story plugin is built by the harness container', () => {
  it('an app-provided WebSearchProvider reaches the research stage', async () => {
    const queries: string[] = [];
    const search: WebSearchProvider = {
      id: 'recording',
      search: async (query) => {
        queries.push(query);
        return [{ title: 'Override', url: 'https://example.test/override', snippet: 'WEB-OVERRIDE-SNIPPET' }];
      },
    };
    const trees = new MemoryTreeStore();
    await seedWorkspace(trees);
    const { harness, sessionLog, model } = await createTestHarness({
      trees,
      model: storyModel(),
      plugins: [storyPlugin()],
      provide: [{ token: StoryTokens.WebSearchProvider, useValue: search }],
    });
    await selectStoryWorkspace(sessionLog, 's1', 'tale');
    await harness.runTurn({ sessionId: 's1', text: 'Where is the tavern?' });
    expect(queries.length).toBe(1);
    expect(requestText(researchRequest(model.calls)!)).toContain('WEB-OVERRIDE-SNIPPET');
    await harness.close();
  });

  it('an app-provided class replaces a plugin service, built with its @inject dependencies', async () => {
    const built: SourceIndexCache[] = [];
    @injectable()
    class CountingIndexCache extends SourceIndexCache {
      constructor(@inject(StoryTokens.Settings) settings: StorySettings) {
        super(settings);
      }
      override indexFor(workspaceId: string) {
        built.push(this);
        return super.indexFor(workspaceId);
      }
    }
    const trees = new MemoryTreeStore();
    await seedWorkspace(trees);
    const { harness, sessionLog } = await createTestHarness({ trees, model: storyModel(), plugins: [storyPlugin()], provide: [{ token: StoryTokens.SourceIndexCache, useClass: CountingIndexCache }] });
    await selectStoryWorkspace(sessionLog, 's1', 'tale');
    await harness.runTurn({ sessionId: 's1', text: 'Where is the tavern?' });
    await harness.runTurn({ sessionId: 's1', text: 'And the guild?' });
    expect(built.length).toBe(2);
    expect(built[0]).toBe(built[1]); // one instance per harness
    await harness.close();
  });

  it('the workspace store can be provided by token instead of the harness trees', async () => {
    const elsewhere = new MemoryTreeStore();
    await seedWorkspace(elsewhere);
    const reads: string[] = [];
    const recording: TreeStore = new Proxy(elsewhere, {
      get: (target, property, receiver) => {
        if (property === 'read') {
          return (id: string) => {
            reads.push(id);
            return target.read(id);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { harness, sessionLog } = await createTestHarness({ model: storyModel(), plugins: [storyPlugin()], provide: [{ token: StoryTokens.WorkspaceStore, useValue: recording }] });
    await selectStoryWorkspace(sessionLog, 's1', 'tale');
    const result = await harness.runTurn({ sessionId: 's1', text: 'Hello' });
    expect(reads).toContain('tale');
    expect(result.events.some((event) => event.type === STORY_EVENTS.draftPrepared)).toBe(true);
    await harness.close();
  });

  it('a plugin service that needs a token nothing provides is a boot error naming it', async () => {
    const Missing = Symbol.for('@troupe/test/NotProvided');
    @injectable()
    class NeedsMissing {
      constructor(@inject(Missing) readonly value: unknown) {}
    }
    let caught: unknown;
    try {
      await createTestHarness({ plugins: [storyPlugin()], provide: [{ token: StoryTokens.SourceIndexCache, useClass: NeedsMissing as never }] });
      // The story plugin builds its services at boot, so the missing token surfaces there.
    } catch (error) {
      caught = error;
    }
    expect(KernelError.isInstance(caught) && caught.code).toBe('KERNEL_SERVICE_MISSING');
    expect((caught as Error).message).toContain('@troupe/test/NotProvided');
    expect((caught as KernelError).plugin).toBe('@troupe/plugin-story');
    expect(Tokens.Fetch).toBeTypeOf('symbol');
  });
});
