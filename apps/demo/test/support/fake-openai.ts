import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One chat completion request the fake server received. */
export interface RecordedRequest {
  readonly path: string;
  readonly body: { readonly model?: string; readonly stream?: boolean; readonly messages?: readonly { role: string; content: unknown }[] };
}

/** A loopback OpenAI-compatible server answering every chat completion with `reply`. */
export interface FakeOpenAi {
  /** Base URL including `/v1`. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /**
   * The next streamed answer sends its first piece and then holds the stream open until the
   * client goes away (a player pressing Stop), so a test can act mid-stream without timing.
   * @returns resolves once that held stream's client has closed the connection
   */
  holdNextStream(): Promise<void>;
  close(): Promise<void>;
}

/** A fake answer that fails: the server answers this HTTP status with an OpenAI-style error body. */
export interface FakeFailure {
  readonly status: number;
}

/** The reply of a fake answer: fixed, or chosen per request (`index` counts from 0), or a failure. */
export type FakeReply = string | ((body: RecordedRequest['body'], index: number) => string | FakeFailure);

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts a fake OpenAI-compatible server on 127.0.0.1 (port 0): `POST /v1/chat/completions`
 * answers `reply` (streamed as SSE chunks when `stream` is set; a {@link FakeFailure} is answered
 * as that HTTP status), `GET /v1/models` lists two
 * models, everything else 404.
 * @param reply - the assistant text of every answer, or a function choosing it per request
 * @returns the running server
 */
export async function startFakeOpenAi(reply: FakeReply): Promise<FakeOpenAi> {
  const requests: RecordedRequest[] = [];
  let held: (() => void) | undefined;
  const server = createServer(async (req, res) => {
    const path = req.url ?? '';
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'fake-rp', object: 'model' }, { id: 'fake-small', object: 'model' }] }));
      return;
    }
    if (req.method !== 'POST' || !path.startsWith('/v1/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(await readBody(req)) as RecordedRequest['body'];
    requests.push({ path, body });
    const text = typeof reply === 'string' ? reply : reply(body, requests.length - 1);
    if (typeof text !== 'string') {
      res.writeHead(text.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `fake failure ${text.status}` } }));
      return;
    }
    const base = { id: `chatcmpl-${requests.length}`, created: 1_700_000_000, model: body.model ?? 'fake' };
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null) =>
        res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      chunk({ role: 'assistant', content: '' }, null);
      const pieces = text.match(/.{1,4}/gsu) ?? [];
      const release = held;
      held = undefined;
      if (release) {
        chunk({ content: pieces[0] ?? '' }, null);
        res.on('close', release);
        return;
      }
      for (const piece of pieces) chunk({ content: piece }, null);
      chunk({}, 'stop');
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    holdNextStream: () =>
      new Promise<void>((resolve) => {
        held = resolve;
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
