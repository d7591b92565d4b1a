import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatRequest } from '@troupe/kernel';

/** One request as the loopback server received it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

/** Answers one request; `index` counts requests from 0. */
export type Handler = (request: ReceivedRequest, response: ServerResponse, index: number) => void | Promise<void>;

/** A real OpenAI-compatible HTTP server on 127.0.0.1, driven by a per-test handler. */
export interface LoopbackServer {
  readonly baseURL: string;
  readonly requests: ReceivedRequest[];
  /** Resolves when a request's connection closed (the client hung up or the answer ended). */
  readonly closed: Promise<void>[];
  close(): Promise<void>;
}

/**
 * Starts a loopback server on a free port.
 * @param handler - answers requests
 */
export async function startServer(handler: Handler): Promise<LoopbackServer> {
  const requests: ReceivedRequest[] = [];
  const closed: Promise<void>[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    closed.push(new Promise((resolve) => res.on('close', () => resolve())));
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      };
      requests.push(received);
      Promise.resolve(handler(received, res, requests.length - 1)).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    closed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends a JSON body with a status. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A chat completion body with text and optional tool calls. */
export function completion(content: string | null, extra: { toolCalls?: unknown[]; finish?: string; usage?: unknown } = {}): unknown {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'test-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, ...(extra.toolCalls ? { tool_calls: extra.toolCalls } : {}) },
        finish_reason: extra.finish ?? 'stop',
      },
    ],
    usage: extra.usage ?? { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  };
}

/** Starts an SSE response. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

/** Writes one SSE `data:` event (objects are JSON-encoded, strings sent raw). */
export function sse(res: ServerResponse, data: unknown): void {
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/** A streamed chunk with a content delta and optional finish reason. */
export function chunk(delta: Record<string, unknown>, finish: string | null = null): unknown {
  return { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] };
}

/** A request with a fresh signal unless one is given. */
export function chatRequest(extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    messages: [
      { role: 'system', content: 'You are Lin Mo.' },
      { role: 'user', content: 'Hello?' },
    ],
    signal: new AbortController().signal,
    meta: { stage: 'actor', sessionId: 's1', turnId: 't1' },
    ...extra,
  };
}

/** Collects every part of a stream. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const parts: T[] = [];
  for await (const part of iterable) parts.push(part);
  return parts;
}

/** A port on 127.0.0.1 where nothing listens (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
