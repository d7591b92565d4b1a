import { afterEach, describe, expect, it } from 'vitest';
import { composeDemo, type Demo } from '../src/compose.js';
import { DioProxy } from '../src/server/dio-proxy.js';
import { tempDataDir } from './helpers.js';
import { type FakeToolServer, startFakeToolServer, type ToolMode } from './support/fake-tool-server.js';

const RAW_INPUT = '从现在起莉娅都用短句回答，少用比喻。';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function demoOn(mode: ToolMode, env: Record<string, string> = {}): Promise<{ demo: Demo; server: FakeToolServer }> {
  const server = await startFakeToolServer(mode);
  cleanups.push(() => server.close());
  const { dir, cleanup } = await tempDataDir();
  cleanups.push(cleanup);
  const demo = await composeDemo({ dataDir: dir, env: { TROUPE_MODEL_BASE_URL: server.baseUrl, TROUPE_MODEL: 'fake-model', ...env } });
  cleanups.push(() => demo.close());
  return { demo, server };
}

describe('schedule_dio on servers with and without tool calling', () => {
  it.each<[string, ToolMode, string | undefined]>([
    ['supports', 'tools', undefined],
    ['rejects (HTTP 400)', 'reject', 'rejected'],
    ['ignores', 'ignore', 'ignored'],
  ])('a server that %s tools: the requirement is scheduled with the raw player input', async (_label, mode, fallback) => {
    const { demo, server } = await demoOn(mode);
    const result = await demo.harness.runTurn(demo.turnInput('tools-1', RAW_INPUT));
    const types = result.events.map((event) => event.type);
    expect(types).toContain('dio/scheduled');
    expect(result.events.find((event) => event.type === 'kernel/tool-called')?.data).toMatchObject({ tool: 'schedule_dio', ok: true });
    const switched = result.events.find((event) => event.type === 'kernel/director-json-fallback');
    expect(switched?.data).toEqual(fallback === undefined ? undefined : expect.objectContaining({ reason: fallback }));
    expect(types).not.toContain('kernel/director-tools-unavailable');
    // The DIO service holds the player's own words, not model-written text.
    const requirements = await new DioProxy(demo.dio).requirements('tools-1');
    expect(requirements.map((requirement) => requirement.text)).toEqual([RAW_INPUT]);
    if (mode === 'reject') {
      // learnt: the next turn's director request carries no `tools`
      const before = server.requests.length;
      await demo.harness.runTurn(demo.turnInput('tools-1', '你好。'));
      const director = server.requests.slice(before).filter((body) => body.messages[0]?.content?.includes('director of a roleplay'));
      expect(director.length).toBeGreaterThan(0);
      expect(director.every((body) => body.tools === undefined)).toBe(true);
    }
  });

  it('TROUPE_MODEL_TOOLS=off: the model says it has no tools, so no request carries `tools` and the JSON decision schedules it', async () => {
    const { demo, server } = await demoOn('tools', { TROUPE_MODEL_TOOLS: 'off' });
    const result = await demo.harness.runTurn(demo.turnInput('tools-off', RAW_INPUT));
    expect(result.events.find((event) => event.type === 'kernel/director-json-fallback')?.data).toMatchObject({ reason: 'capability' });
    expect(result.events.map((event) => event.type)).toContain('dio/scheduled');
    expect(server.requests.every((body) => body.tools === undefined)).toBe(true);
    expect((await new DioProxy(demo.dio).requirements('tools-off')).map((requirement) => requirement.text)).toEqual([RAW_INPUT]);
  });
});
