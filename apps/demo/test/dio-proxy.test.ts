import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sha256Hex } from '@troupe/kernel/util';
import { MAX_RESPONSE_BYTES } from '@troupe/plugin-dio';
import { afterEach, describe, expect, it } from 'vitest';
import type { DemoDio } from '../src/compose.js';
import { ApiError } from '../src/server/api-error.js';
import { DioProxy } from '../src/server/dio-proxy.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback stand-in for the DIO service answering each path with `answer(path)`. */
async function fakeDio(answer: (path: string) => { status: number; body: string }): Promise<DemoDio> {
  server = createServer((req, res) => {
    const { status, body } = answer(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, userId: 'player-1', authorization: 'Bearer t', targetPromptId: 'lia-character', service: undefined, registerPrompt: undefined };
}

const prompt = (text: string, sha: string) =>
  JSON.stringify({ versionId: 'v2', sourceVersionId: 's1', changeset: { added: [], removed: [] }, compiledPrompt: text, compiledPromptSha256: sha });

async function apiErrorOf(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return { status: (error as ApiError).status, code: (error as ApiError).code };
}

describe('DioProxy', () => {
  it('returns a verified active prompt and null when there is none', async () => {
    let exists = true;
    const dio = await fakeDio(() => (exists ? { status: 200, body: prompt('短句。', sha256Hex('短句。')) } : { status: 404, body: '{"error":{"code":"NOT_FOUND","message":"none"}}' }));
    const proxy = new DioProxy(dio);
    expect(await proxy.activePrompt('chat-1')).toMatchObject({ compiledPrompt: '短句。', hashVerified: true });
    exists = false;
    expect(await proxy.activePrompt('chat-1')).toBeNull();
  });

  it('refuses an active prompt whose SHA-256 does not match its text (502)', async () => {
    const dio = await fakeDio(() => ({ status: 200, body: prompt('短句。', sha256Hex('something else')) }));
    expect(await apiErrorOf(new DioProxy(dio).activePrompt('chat-1'))).toEqual({ status: 502, code: 'DIO_INVALID_RESPONSE' });
  });

  it('refuses answers larger than the cap instead of buffering them (502)', async () => {
    const huge = JSON.stringify({ requirements: [{ id: 'r', text: 'x'.repeat(MAX_RESPONSE_BYTES), requestId: 'q', createdAt: 'now' }] });
    const dio = await fakeDio((path) => (path.endsWith('/requirements') ? { status: 200, body: huge } : { status: 200, body: prompt('x'.repeat(MAX_RESPONSE_BYTES), sha256Hex('x'.repeat(MAX_RESPONSE_BYTES))) }));
    const proxy = new DioProxy(dio);
    expect(await apiErrorOf(proxy.requirements('chat-1'))).toEqual({ status: 502, code: 'DIO_INVALID_RESPONSE' });
    expect(await apiErrorOf(proxy.activePrompt('chat-1'))).toEqual({ status: 502, code: 'DIO_INVALID_RESPONSE' });
  });

  it('answers 502 DIO_UNAVAILABLE when the service is down', async () => {
    const dio = await fakeDio(() => ({ status: 503, body: '{}' }));
    const proxy = new DioProxy(dio);
    expect(await apiErrorOf(proxy.activePrompt('chat-1'))).toEqual({ status: 502, code: 'DIO_UNAVAILABLE' });
    expect(await apiErrorOf(proxy.requirements('chat-1'))).toEqual({ status: 502, code: 'DIO_UNAVAILABLE' });
  });
});
