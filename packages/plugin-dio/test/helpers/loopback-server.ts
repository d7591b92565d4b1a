import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the server saw. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** What the handler decides for one request. */
export type Reply =
  | { readonly status: number; readonly json?: unknown; readonly raw?: string; readonly headers?: Readonly<Record<string, string>> }
  | { readonly reset: true }
  | { readonly hang: true };

/** A loopback `node:http` server whose answers a test scripts per request (fault injection). */
export interface LoopbackServer {
  readonly url: string;
  readonly requests: SeenRequest[];
  /** `x-test-request-id` headers of requests answered with `hang` (see `trackedFetch`). */
  readonly hung: Set<string>;
  handler: (request: SeenRequest) => Reply | Promise<Reply>;
  close(): Promise<void>;
}

/**
 * Starts a server on 127.0.0.1, port 0.
 * @param handler - decides each answer
 */
export async function startLoopbackServer(handler: LoopbackServer['handler']): Promise<LoopbackServer> {
  const requests: SeenRequest[] = [];
  const state: LoopbackServer = {
    url: '',
    requests,
    hung: new Set(),
    handler,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
    const seen: SeenRequest = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
    requests.push(seen);
    const reply = await state.handler(seen);
    if ('reset' in reply) {
      request.socket.destroy();
      return;
    }
    if ('hang' in reply) {
      const id = request.headers['x-test-request-id'];
      if (typeof id === 'string') state.hung.add(id);
      return;
    }
    const text = reply.raw ?? JSON.stringify(reply.json ?? {});
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    response.end(text);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  (state as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
