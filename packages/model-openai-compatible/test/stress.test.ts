import { afterEach, describe, expect, it } from 'vitest';
import { openAICompatibleModel } from '../src/index.js';
import { chatRequest, chunk, type LoopbackServer, sse, startServer, startSse } from './loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const STREAMS = process.env.STRESS === '1' ? 400 : 20;
const DELTAS = 10;

describe('many concurrent streams, some aborted mid-stream', () => {
  it(`${STREAMS} streams: aborted ones reject with their reason, others finish whole; one request each`, async () => {
    server = await startServer(async (_req, res) => {
      startSse(res);
      for (let index = 0; index < DELTAS; index++) {
        if (res.destroyed) return;
        sse(res, chunk({ content: `w${index} ` }));
        await new Promise((resolve) => setImmediate(resolve));
      }
      sse(res, chunk({}, 'stop'));
      sse(res, '[DONE]');
      res.end();
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 3 }, {});
    const expected = Array.from({ length: DELTAS }, (_, index) => `w${index} `).join('');
    const run = async (index: number) => {
      const controller = new AbortController();
      const reason = new Error(`stop ${index}`);
      const abortAfter = index % 3 === 0 ? 1 + (index % DELTAS) : Number.POSITIVE_INFINITY;
      let deltas = 0;
      try {
        for await (const part of model.stream!(chatRequest({ signal: controller.signal }))) {
          if (part.type === 'finish') return { finished: part.response.text };
          deltas++;
          if (deltas >= abortAfter) controller.abort(reason);
        }
        return { ended: true };
      } catch (error) {
        return { error, reason };
      }
    };
    const results: Awaited<ReturnType<typeof run>>[] = [];
    for (let start = 0; start < STREAMS; start += 20) {
      results.push(...(await Promise.all(Array.from({ length: Math.min(20, STREAMS - start) }, (_, offset) => run(start + offset)))));
    }
    results.forEach((result, index) => {
      if (index % 3 === 0 && 1 + (index % DELTAS) <= DELTAS) {
        expect('error' in result && result.error === result.reason, `stream ${index}`).toBe(true);
      } else {
        expect(result, `stream ${index}`).toEqual({ finished: expected });
      }
    });
    await Promise.all(server.closed);
    expect(server.requests).toHaveLength(STREAMS);
    // The STRESS variant is about correctness under load, not speed: 400 streams on a busy
    // 2-core machine take longer than the default 5 s.
  }, STREAMS > 20 ? 120_000 : 5_000);
});
