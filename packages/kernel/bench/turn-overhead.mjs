// Kernel overhead per turn: zero-latency model, in-memory stores, N no-op plugins that each
// register a handler on every hook. Run with `pnpm bench` (after a build).
// Before/after in one run: `BENCH_BASELINE=<a kernel dist/ folder> node bench/turn-overhead.mjs`
// measures that build and this one alternately (the folder must sit inside packages/kernel so its
// imports resolve, e.g. `.tmp/baseline/dist` copied from a build of the base commit). Several
// baselines: separate the folders with commas; each is labelled by its folder name. BENCH_KINDS=sync
// (or async) runs one kind of handler only; BENCH_PLUGINS=3,30 only those plugin counts;
// BENCH_ROUNDS sets the alternating rounds.
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const builds = [{ label: 'this build', dir: new URL('../dist/', import.meta.url).href }];
const baselines = (process.env.BENCH_BASELINE ?? '').split(',').filter(Boolean);
builds.unshift(
  ...baselines.map((folder) => ({
    label: baselines.length > 1 ? basename(resolve(folder, folder.endsWith('dist') || folder.endsWith('dist/') ? '..' : '.')) : 'baseline',
    dir: `${pathToFileURL(resolve(folder)).href}/`,
  })),
);
const kernels = await Promise.all(
  builds.map(async (build) => ({ ...build, kernel: await import(`${build.dir}index.js`), testing: await import(`${build.dir}testing/index.js`) })),
);

const zeroLatencyModel = { id: 'zero', generate: async () => ({ text: 'ok' }) };

function noopPlugin({ definePlugin }, index, kind) {
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

async function measure({ kernel, testing }, pluginCount, turns, kind) {
  const harness = await kernel.createHarness({
    model: zeroLatencyModel,
    sessionLog: new testing.MemorySessionLog(),
    plugins: Array.from({ length: pluginCount }, (_, index) => noopPlugin(kernel, index, kind)),
  });
  // 20-turn sessions, like a real conversation; warm up first.
  const run = async (count, offset) => {
    for (let turn = 0; turn < count; turn++) {
      await harness.runTurn({ sessionId: `s${Math.floor((turn + offset) / 20)}`, text: 'hello' });
    }
  };
  await run(2_000, 0);
  const samples = [];
  const cpuSamples = [];
  const batches = 20;
  const perBatch = Math.floor(turns / batches);
  for (let batch = 0; batch < batches; batch++) {
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    await run(perBatch, 100_000 + batch * perBatch);
    samples.push(Number(process.hrtime.bigint() - start) / 1_000 / perBatch);
    // CPU time of this process (user + system): on a shared, loaded machine it leaves out the
    // time the process waited for a core, which wall time does not.
    const cpu = process.cpuUsage(cpuStart);
    cpuSamples.push((cpu.user + cpu.system) / perBatch);
  }
  await harness.close();
  samples.sort((a, b) => a - b);
  cpuSamples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)], best: samples[0], cpu: cpuSamples[Math.floor(cpuSamples.length / 2)] };
}

console.log(`@troupe/kernel — overhead per turn (Node ${process.version}, ${process.platform}/${process.arch})`);
const pluginCounts = (process.env.BENCH_PLUGINS ?? '0,3,30').split(',').map(Number);
const rounds = Number(process.env.BENCH_ROUNDS ?? (kernels.length > 1 ? 3 : 1));
for (const kind of (process.env.BENCH_KINDS ?? 'sync,async').split(',')) {
  for (const build of kernels) build.results = {};
  // Builds alternate per plugin count and round, so a load change hits both alike; best median kept.
  for (let round = 0; round < rounds; round++) {
    for (const plugins of pluginCounts) {
      for (const build of kernels) {
        const result = await measure(build, plugins, 20_000, kind);
        const kept = build.results[plugins];
        if (!kept || result.median < kept.median) build.results[plugins] = result;
      }
    }
  }
  for (const build of kernels) {
    const prefix = kernels.length > 1 ? `${build.label.padEnd(Math.max(10, ...kernels.map((entry) => entry.label.length)))} ` : '';
    for (const plugins of pluginCounts) {
      const result = build.results[plugins];
      console.log(
        `  ${prefix}${kind.padEnd(5)} ${String(plugins).padStart(2)} no-op plugins: median ${result.median.toFixed(1)} µs/turn (best batch ${result.best.toFixed(1)} µs; CPU ${result.cpu.toFixed(1)} µs/turn)`,
      );
    }
    if (!build.results[3] || !build.results[30]) continue;
    const perPlugin = (build.results[30].median - build.results[3].median) / 27;
    console.log(`  ${prefix}${kind.padEnd(5)} marginal cost: ${perPlugin.toFixed(2)} µs per extra plugin (4 handlers each)`);
  }
}
