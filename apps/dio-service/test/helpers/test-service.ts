import { afterEach } from 'vitest';
import { type ChatModel, type Logger, silentLogger, type TreeStore } from '@troupe/kernel';
import { MemoryTreeStore } from '@troupe/kernel/testing';
import { offlineModel } from '@troupe/model-offline';
import type { DioClient } from '@troupe/plugin-dio';
import type { ServiceConfig } from '../../src/config.js';
import { type RunningDioService, startDioService } from '../../src/start.js';

export const ADMIN = 'admin-token-123456';
export const TOKENS = { alice: 'alice-token-123456', bob: 'bob-token-1234567' } as const;
export const LIA_BASE = '你是莉娅，一位住在海边灯塔里的旅店老板。说话温和，喜欢用比喻。';

/** The reference service on 127.0.0.1 with an in-memory store (unless given) and the offline model. */
export async function startTestService(
  overrides: { trees?: TreeStore; model?: ChatModel; logger?: Logger; tokens?: ReadonlyArray<readonly [string, string]> } = {},
): Promise<RunningDioService & { trees: TreeStore }> {
  const trees = overrides.trees ?? new MemoryTreeStore();
  const config: ServiceConfig = {
    port: 0,
    host: '127.0.0.1',
    dataDir: '/nonexistent',
    tokens: new Map([
      [TOKENS.alice, 'alice'],
      [TOKENS.bob, 'bob'],
      ...(overrides.tokens ?? []),
    ]),
    adminToken: ADMIN,
    model: undefined,
  };
  const running = await startDioService(config, overrides.logger ?? silentLogger, { trees, model: overrides.model ?? offlineModel() });
  return { ...running, trees };
}

/** `fetch` with a bearer token and a JSON body. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers field by field.
export async function call(base: string, method: string, path: string, token: string | undefined, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** Registers Lia's base prompt. */
export async function registerLia(base: string, targetPromptId = 'lia-character'): Promise<void> {
  const result = await call(base, 'PUT', `/v1/prompts/${targetPromptId}`, ADMIN, { content: LIA_BASE, characterName: '莉娅' });
  if (result.status !== 201 && result.status !== 200) throw new Error(`register failed: ${result.status}`);
}

/** Submits a requirement of `user` (with `token`) for RP turn `turn` in conversation-8 / lia-character. */
export function scheduleAs(client: DioClient, turn: string, instruction: string, user = 'alice', token: string = TOKENS.alice) {
  return client.schedule({
    actorTurnRequestId: turn,
    userId: user,
    rpConversationId: 'conversation-8',
    targetPromptId: 'lia-character',
    instruction,
    language: 'zh',
    userAuthorization: `Bearer ${token}`,
  });
}

/**
 * Closes what a test opened (services, harnesses) after each test, newest first, so a harness
 * closes before the service it talks to. Call once at the top of a test file.
 * @returns `track(thing)`: registers `thing` to be closed after the current test and returns it
 */
export function closeAfterEach(): <T extends { close(): Promise<unknown> }>(thing: T) => T {
  const open: { close(): Promise<unknown> }[] = [];
  afterEach(async () => {
    for (const thing of open.splice(0).reverse()) await thing.close();
  });
  return (thing) => {
    open.push(thing);
    return thing;
  };
}
