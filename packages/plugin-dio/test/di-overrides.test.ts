import { createHarness, Tokens } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { DioClient, DioClientToken, dioPlugin } from '../src/index.js';
import { type LoopbackServer, startLoopbackServer } from './helpers/loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the DIO client is built by the harness container', () => {
  it('an app-provided Tokens.Fetch carries every DIO request of a turn', async () => {
    server = await startLoopbackServer(() => ({ status: 404, json: {} }));
    const seen: string[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      seen.push(String(input));
      return fetch(input, init);
    };
    const harness = await createHarness({
      plugins: [dioPlugin({ baseUrl: server.url, targetPromptId: 'lia' })],
      model: new ScriptedChatModel(),
      sessionLog: new MemorySessionLog(),
      provide: [{ token: Tokens.Fetch, useValue: recordingFetch }],
    });
    await harness.runTurn({ sessionId: 's', text: 'hello', userId: 'u1' });
    expect(seen.some((url) => url.startsWith(server!.url) && url.includes('/v1/director/active-prompt'))).toBe(true);
    // The client the app resolves is the one the plugin uses.
    expect(harness.resolve(DioClientToken)).toBe(harness.resolve(DioClientToken));
    await harness.close();
  });

  it('an app-provided DioClientToken replaces the client: the plugin looks the active prompt up through it', async () => {
    server = await startLoopbackServer(() => ({ status: 404, json: {} }));
    const lookups: string[] = [];
    class RecordingDioClient extends DioClient {
      override activePrompt(...args: Parameters<DioClient['activePrompt']>): ReturnType<DioClient['activePrompt']> {
        lookups.push(args[0].targetPromptId);
        return super.activePrompt(...args);
      }
    }
    const client = new RecordingDioClient(server.url, 5_000);
    const harness = await createHarness({
      plugins: [dioPlugin({ baseUrl: 'http://127.0.0.1:9', targetPromptId: 'lia' })],
      model: new ScriptedChatModel(),
      sessionLog: new MemorySessionLog(),
      provide: [{ token: DioClientToken, useValue: client }],
    });
    await harness.runTurn({ sessionId: 's', text: 'hello', userId: 'u1' });
    expect(lookups).toEqual(['lia']);
    expect(harness.resolve(DioClientToken)).toBe(client);
    await harness.close();
  });
});
