import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback OpenAI-compatible model whose continuity-worker calls take a while. */
export interface SlowContinuityModel {
  /** Base URL including `/v1`. */
  readonly baseUrl: string;
  /** How many continuity calls it has answered. */
  continuityCalls(): number;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts the model: every call answers a short reply (streamed when asked); a call of the story
 * continuity worker (the write-back after a committed turn) first waits (`delay`), so a test can
 * close the stream or stop the server while that work is in flight.
 * @param delay - how long continuity calls take (ms), or a promise they wait for (a test holds
 *   them until it resolves, with no timing)
 * @returns the running model
 */
export async function startSlowContinuityModel(delay: number | Promise<void>): Promise<SlowContinuityModel> {
  let continuity = 0;
  const server: Server = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as { stream?: boolean; messages?: { content?: unknown }[] };
    const isContinuity = JSON.stringify(body.messages ?? []).includes('You are the continuity worker');
    if (isContinuity) {
      await (typeof delay === 'number' ? new Promise((resolve) => setTimeout(resolve, delay)) : delay);
      continuity += 1;
    }
    const reply = isContinuity ? JSON.stringify({ publicEvents: ['Lia lit the harbour lamp.'], observations: [], proposals: [] }) : 'The lamp flickers on.';
    const base = { id: 'chatcmpl-1', created: 1_700_000_000, model: 'slow' };
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null) =>
        res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      chunk({ role: 'assistant', content: reply }, null);
      chunk({}, 'stop');
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    continuityCalls: () => continuity,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
