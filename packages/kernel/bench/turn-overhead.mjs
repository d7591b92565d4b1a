// Kernel overhead per turn: zero-latency model, in-memory stores, N no-op plugins that each
// register a handler on every hook. Run with `pnpm bench` (after a build).
import { createHarness, definePlugin } from '../dist/index.js';
import { MemorySessionLog } from '../dist/testing/index.js';

const zeroLatencyModel = { id: 'zero', generate: async () => ({ text: 'ok' }) };

function noopPlugin(index, kind) {
  const handler = kind === 'async' ? async (_value, ctx) => void ctx.signal : () => undefined;
  return definePlugin({
    name: `noop-${index}`,
    version: '1.0.0',
    kernel: '^0.1.0',
    setup(ctx) {
      ctx.hooks.preActor(handler);
      ctx.hooks.actorAssemble(handler);
      ctx.hooks.review(handler);
      ctx.hooks.postReview(handler);
    },
  });
}

async function measure(pluginCount, turns, kind) {
  const harness = await createHarness({
    model: zeroLatencyModel,
    sessionLog: new MemorySessionLog(),
    plugins: Array.from({ length: pluginCount }, (_, index) => noopPlugin(index, kind)),
  });
  // 20-turn sessions, like a real conversation; warm up first.
  const run = async (count, offset) => {
    for (let turn = 0; turn < count; turn++) {
      await harness.runTurn({ sessionId: `s${Math.floor((turn + offset) / 20)}`, text: 'hello' });
    }
  };
  await run(2_000, 0);
  const samples = [];
  const batches = 20;
  const perBatch = Math.floor(turns / batches);
  for (let batch = 0; batch < batches; batch++) {
    const start = process.hrtime.bigint();
    await run(perBatch, 100_000 + batch * perBatch);
    samples.push(Number(process.hrtime.bigint() - start) / 1_000 / perBatch);
  }
  await harness.close();
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)], best: samples[0] };
}

console.log(`@troupe/kernel — overhead per turn (Node ${process.version}, ${process.platform}/${process.arch})`);
for (const kind of ['sync', 'async']) {
  const results = {};
  for (const plugins of [0, 3, 30]) {
    results[plugins] = await measure(plugins, 20_000, kind);
    console.log(`  ${kind.padEnd(5)} ${String(plugins).padStart(2)} no-op plugins: median ${results[plugins].median.toFixed(1)} µs/turn (best batch ${results[plugins].best.toFixed(1)} µs)`);
  }
  const perPlugin = (results[30].median - results[3].median) / 27;
  console.log(`  ${kind.padEnd(5)} marginal cost: ${perPlugin.toFixed(2)} µs per extra plugin (4 handlers each)`);
}
