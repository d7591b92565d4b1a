// Adapter + SDK overhead per call against a loopback OpenAI-compatible server that answers at once
// (so the numbers are the client side plus local HTTP, not model time). Run with `pnpm bench`.
import { createServer } from 'node:http';
import { openAICompatibleModel } from '../dist/index.js';

const completion = JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1 } });
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    if (JSON.parse(body).stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let index = 0; index < 20; index++) res.write(`data: {"choices":[{"index":0,"delta":{"content":"w${index} "}}]}\n\n`);
      res.write('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(completion);
    }
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const model = openAICompatibleModel({ baseURL: `http://127.0.0.1:${server.address().port}/v1`, model: 'bench', maxRetries: 0 }, {});
const request = () => ({ messages: [{ role: 'user', content: 'hi' }], signal: new AbortController().signal, meta: { stage: 'actor', sessionId: 'b', turnId: 't' } });

async function measure(name, iterations, call) {
  for (let warm = 0; warm < 50; warm++) await call();
  const samples = [];
  for (let index = 0; index < iterations; index++) {
    const start = process.hrtime.bigint();
    await call();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const pick = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))].toFixed(2);
  console.log(`  ${name.padEnd(28)} p50 ${pick(0.5)} ms  p95 ${pick(0.95)} ms  p99 ${pick(0.99)} ms`);
}

const iterations = Number(process.env.BENCH_ITERATIONS ?? 1000);
console.log(`@troupe/model-openai-compatible: ${iterations} sequential calls, loopback server, no model time`);
await measure('generate', iterations, () => model.generate(request()));
await measure('stream (20 deltas)', iterations, async () => {
  for await (const _part of model.stream(request()));
});
server.close();
