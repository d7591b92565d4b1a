import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playTurn } from './support/api-client.js';
import { eventually } from './support/web-fixture.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const ACTOR_DELAY_MS = 2_500;

async function body(req: IncomingMessage): Promise<{ stream?: boolean; tools?: unknown[]; messages: { role: string; content: unknown }[] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * A model server: the director calls `schedule_dio` once, the actor streams after 2.5 s, and the
 * DIO compile (no tools, not streamed) answers at once with the draft it was given.
 */
async function startModelServer(): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer(async (req, res) => {
    const request = await body(req);
    const base = { id: 'c', created: 1, model: 'fake' };
    const answer = (message: Record<string, unknown>) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }] }),
      );
    if (request.tools) {
      const toolAnswered = request.messages.some((message) => message.role === 'tool');
      if (toolAnswered) return answer({ content: 'done' });
      return answer({ content: null, tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'schedule_dio', arguments: '{}' } }] });
    }
    if (request.stream) {
      await new Promise((resolve) => setTimeout(resolve, ACTOR_DELAY_MS));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '好的。' }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
      return res.end('data: [DONE]\n\n');
    }
    return answer({ content: String(request.messages.at(-1)?.content ?? '') });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

let model: Awaited<ReturnType<typeof startModelServer>>;
// Registered before the fixture: the model server starts first (the demo's environment names it) and stops last.
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(async () => {
  model.server.closeAllConnections();
  await new Promise<void>((resolve) => model.server.close(() => resolve()));
});

const fx = setupWebFixture({ env: () => ({ TROUPE_MODEL_BASE_URL: model.baseUrl, TROUPE_MODEL: 'fake' }) });
const { api } = fx;

describe('the DIO view after a slow turn', () => {
  it('a 2.5 s actor with a fast DIO task → the view shows succeeded, not processing forever', async () => {
    const messages = await playTurn(fx.server.url, 'slow-actor', '从现在起莉娅都用短句回答，少用比喻。');
    expect(messages.at(-1)?.event).toBe('result');
    const task = await eventually(async () => {
      const view = (await api('GET', '/api/sessions/slow-actor/dio')).body;
      return view.task?.status === 'processing' ? undefined : view.task;
    }, 'the DIO task to leave processing');
    expect(task).toMatchObject({ status: 'succeeded', promptChanged: true });
    const types = (await fx.demo.storage.sessions.read('slow-actor')).map((event) => event.type);
    expect(types.indexOf('dio/task-terminal')).toBeGreaterThan(types.indexOf('kernel/turn-committed'));
  });
});
