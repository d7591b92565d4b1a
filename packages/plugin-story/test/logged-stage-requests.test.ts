import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, type NewSessionEvent, type SessionEvent, type SessionLog } from '@troupe/kernel';
import { MemorySessionLog, MemoryTreeStore } from '@troupe/kernel/testing';
import { fsStorage } from '@troupe/storage-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { selectStoryWorkspace, STORY_EVENTS, storyPlugin } from '../src/index.js';
import { seedWorkspace, storyModel } from './helpers.js';

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

// The JSON Schema of a structured stage is frozen with its text once (kernel `freezeJson`) and
// spliced into each logged request: every store must keep exactly what JSON.stringify would write.
describe('logged stage requests with their JSON Schema', () => {
  it('log the very schema sent to the model, in lines JSON.stringify would write, on storage-fs', async () => {
    root = await mkdtemp(join(tmpdir(), 'troupe-story-log-'));
    const storage = fsStorage({ root });
    await seedWorkspace(storage.trees);
    await selectStoryWorkspace(storage.sessions, 's1', 'tale');
    const model = storyModel();
    const harness = await createHarness({ trees: storage.trees, sessionLog: storage.sessions, model, plugins: [storyPlugin()] });
    await harness.runTurn({ sessionId: 's1', text: 'I enter the tavern', turnId: 't1' });
    await harness.runTurn({ sessionId: 's1', text: 'I order an ale', turnId: 't2' });
    await harness.close();

    const sent = model.calls.filter((call) => call.json !== undefined);
    expect(sent.length).toBeGreaterThan(2);
    // One frozen object per schema and name, the same on every call of that stage.
    for (const call of sent) expect(Object.isFrozen(call.json) && Object.isFrozen((call.json as { schema: object }).schema)).toBe(true);
    const byStage = new Map(sent.map((call) => [call.meta.stage, call.json]));
    for (const call of sent) expect(call.json).toBe(byStage.get(call.meta.stage));

    const lines = (await readFile(join(root, 'sessions', 's1', 'events.jsonl'), 'utf8')).split('\n').filter(Boolean);
    const requests = lines.map((line) => [line, JSON.parse(line) as SessionEvent] as const).filter(([, event]) => event.type === STORY_EVENTS.stageRequest);
    const withSchema = requests.filter(([, event]) => (event.data as { json?: unknown }).json !== undefined);
    expect(withSchema.length).toBe(sent.length);
    for (const [line, event] of requests) expect(line).toBe(JSON.stringify(event));
    for (const [, event] of withSchema) {
      const data = event.data as { stage: string; json: unknown };
      expect(data.json).toStrictEqual(JSON.parse(JSON.stringify(byStage.get(data.stage))));
    }
    expect(await storage.sessions.export('s1')).toBe(`${lines.join('\n')}\n`);
  });

  it('round-trip byte for byte through MemorySessionLog and storage-fs, as their unfrozen copies do', async () => {
    const model = storyModel();
    const trees = new MemoryTreeStore();
    await seedWorkspace(trees);
    const memory = new MemorySessionLog();
    await selectStoryWorkspace(memory, 's1', 'tale');
    const harness = await createHarness({ trees, sessionLog: memory, model, plugins: [storyPlugin()] });
    await harness.runTurn({ sessionId: 's1', text: 'I enter the tavern', turnId: 't1' });
    await harness.close();
    const batch: NewSessionEvent[] = model.calls
      .filter((call) => call.json !== undefined)
      .map((call, at) => ({
        turnId: 't9',
        step: 0,
        type: STORY_EVENTS.stageRequest,
        ignorable: true,
        at: '2026-12-02T00:00:00.000Z',
        ...(at === 0 ? { key: 'first' } : {}),
        data: { stage: call.meta.stage, model: 'scripted', messages: call.messages, json: call.json },
      }));
    const unfrozen = batch.map((event) => ({ ...event, data: JSON.parse(JSON.stringify(event.data)) as unknown }));

    root = await mkdtemp(join(tmpdir(), 'troupe-story-log-'));
    const logs: Record<string, SessionLog> = { memory: new MemorySessionLog(), fs: fsStorage({ root }).sessions };
    const exports: string[] = [];
    for (const [name, log] of Object.entries(logs)) {
      const appended = await log.append(`${name}-frozen`, batch);
      await log.append(`${name}-plain`, unfrozen);
      const frozenExport = await log.export(`${name}-frozen`);
      expect(frozenExport.replaceAll(`${name}-frozen`, 'S')).toBe((await log.export(`${name}-plain`)).replaceAll(`${name}-plain`, 'S'));
      exports.push(frozenExport.replaceAll(`${name}-frozen`, 'S'));
      const read = await log.read(`${name}-frozen`);
      expect(read.map((event) => event.data)).toStrictEqual(unfrozen.map((event) => event.data));
      expect(appended.map((event) => event.data)).toStrictEqual(unfrozen.map((event) => event.data));
      expect((await log.findLatest(`${name}-frozen`, { type: STORY_EVENTS.stageRequest, key: 'first' }))?.data).toStrictEqual(unfrozen[0]?.data);
      // What one store exports, another imports unchanged.
      await log.import(`${name}-copy`, frozenExport);
      expect((await log.export(`${name}-copy`)).replaceAll(`${name}-copy`, 'S')).toBe(exports.at(-1));
    }
    expect(exports[0]).toBe(exports[1]);
  });
});
