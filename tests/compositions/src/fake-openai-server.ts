import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback stand-in for an OpenAI-compatible server: answers every chat completion with one text. */
export interface FakeOpenAIServer {
  /** Base URL including `/v1`. */
  readonly baseURL: string;
  /** The JSON bodies received on `POST /v1/chat/completions`. */
  readonly requests: unknown[];
  close(): Promise<void>;
}

/**
 * Starts the server on 127.0.0.1 and a free port.
 * @param replyText - the assistant message of every completion
 * @returns the running server
 */
export async function startFakeOpenAIServer(replyText: string): Promise<FakeOpenAIServer> {
  const requests: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const request = JSON.parse(body) as { model: string };
      requests.push(request);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: 0,
          model: request.model,
          choices: [{ index: 0, message: { role: 'assistant', content: replyText }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
