// Offline model throughput per stage (no simulated latency): how much the simulation itself costs
// per call. Run with `pnpm bench` (after a build).
import { offlineModel } from '../dist/index.js';

const model = offlineModel();
const signal = new AbortController().signal;
const meta = (stage) => ({ stage, sessionId: 'bench', turnId: 't' });
const history = Array.from({ length: 20 }, (_, index) => ({ role: index % 2 ? 'assistant' : 'user', content: `Line ${index} of a rainy harbour story.` }));
const characterSchema = {
  type: 'object',
  properties: {
    characters: {
      type: 'array',
      minItems: 1,
      maxItems: 4,
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, goal: { type: 'string', maxLength: 200 }, mood: { enum: ['calm', 'tense'] }, intensity: { type: 'integer', minimum: 1, maximum: 10 } },
        required: ['name', 'goal', 'mood', 'intensity'],
      },
    },
  },
  required: ['characters'],
};

const cases = {
  actor: { messages: [{ role: 'system', content: 'You are Lin Mo. Use short sentences.' }, ...history, { role: 'user', content: 'Who sent the letter?' }], signal, meta: meta('actor') },
  director: {
    messages: [{ role: 'system', content: 'director' }, ...history, { role: 'user', content: '从现在起，你说话要用短句。' }],
    tools: [{ name: 'schedule_dio', description: 'x', parameters: { type: 'object' } }],
    signal,
    meta: meta('director'),
  },
  'story/character (json)': { messages: [...history, { role: 'user', content: 'The harbour at night.' }], json: { schema: characterSchema }, signal, meta: meta('story/character') },
  'story/section': { messages: [{ role: 'system', content: 'Name: Lin Mo\nName: Su Wan' }, { role: 'user', content: 'Open the letter.' }], signal, meta: meta('story/section') },
};

const iterations = Number(process.env.BENCH_ITERATIONS ?? 20000);
console.log(`@troupe/model-offline: ${iterations} calls per stage, latency 0`);
for (const [name, request] of Object.entries(cases)) {
  for (let warm = 0; warm < 500; warm++) await model.generate(request);
  const start = process.hrtime.bigint();
  for (let index = 0; index < iterations; index++) await model.generate(request);
  const micros = Number(process.hrtime.bigint() - start) / 1000 / iterations;
  console.log(`  ${name.padEnd(24)} ${micros.toFixed(1).padStart(7)} µs/call  ${Math.round(1e6 / micros).toLocaleString('en-US').padStart(9)} calls/s`);
}
const streamStart = process.hrtime.bigint();
for (let index = 0; index < iterations / 4; index++) for await (const _part of model.stream(cases.actor));
console.log(`  ${'actor (stream)'.padEnd(24)} ${(Number(process.hrtime.bigint() - streamStart) / 1000 / (iterations / 4)).toFixed(1).padStart(7)} µs/call`);
