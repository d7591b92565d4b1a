// What a deadline costs on the path from a model's answer to the next request (run after `tsc -b`:
// `node bench/deadline-race.mjs`). A chain of STEPS calls, each answered by a timer after
// BENCH_LATENCY_MS (default 20), each under a deadline; reported: the median time from one
// answer to the next request ("cold": after every wait the code runs cold) and the time per
// call when the answers are already there ("warm").
//   - effect per call: `Effect.runPromise(tryPromise(...).pipe(timeoutOrElse(...)))` per call (the
//     kernel's runWithin until session 5);
//   - effect, one fiber: the whole chain in one `Effect.gen`, each call with `timeoutOrElse`;
//   - runWithin / runWithinLazily: the kernel's plain race (the work's signal made at once / when read);
//   - bare await: no deadline at all (the floor of the chain itself).
import { Duration, Effect } from 'effect';
import { systemClock } from '../dist/index.js';
import { runWithin, runWithinLazily } from '../dist/util/index.js';

const L = Number(process.env.BENCH_LATENCY_MS ?? 20);
const STEPS = 9;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LIMIT_MS = 60_000;
const cancel = new AbortController().signal;
const timedOut = () => new Error('timed out');

// One call: marks its request, answers after `ms` (at once for 0), marks the answer.
function call(ms, marks, signal) {
  marks.push(['req', performance.now()]);
  if (ms === 0) return Promise.resolve(signal === undefined ? 0 : 1);
  return new Promise((resolve) =>
    setTimeout(() => {
      marks.push(['ans', performance.now()]);
      resolve(1);
    }, ms),
  );
}

const withTimeout = (effect) => effect.pipe(Effect.timeoutOrElse({ duration: Duration.millis(LIMIT_MS), orElse: () => Effect.fail(timedOut()) }));
const variants = {
  'effect per call': async (ms, marks) => {
    for (let i = 0; i < STEPS; i++) await Effect.runPromise(withTimeout(Effect.tryPromise({ try: (signal) => call(ms, marks, signal), catch: (e) => e })));
  },
  'effect, one fiber': (ms, marks) =>
    Effect.runPromise(
      Effect.gen(function* () {
        for (let i = 0; i < STEPS; i++) yield* withTimeout(Effect.tryPromise({ try: (signal) => call(ms, marks, signal), catch: (e) => e }));
      }),
    ),
  runWithin: async (ms, marks) => {
    for (let i = 0; i < STEPS; i++) await runWithin(systemClock, LIMIT_MS, cancel, timedOut, (signal) => call(ms, marks, signal));
  },
  'runWithinLazily (signal not read)': async (ms, marks) => {
    for (let i = 0; i < STEPS; i++) await runWithinLazily(systemClock, LIMIT_MS, cancel, timedOut, () => call(ms, marks, undefined));
  },
  'bare await': async (ms, marks) => {
    for (let i = 0; i < STEPS; i++) await call(ms, marks, undefined);
  },
};

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const run of Object.values(variants)) for (let i = 0; i < 300; i++) await run(0, []);
const cold = new Map(Object.keys(variants).map((name) => [name, []]));
const warm = new Map(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(variants)) {
    for (let chain = 0; chain < 6; chain++) {
      const marks = [];
      await run(L, marks);
      for (let i = 1; i < marks.length; i++) if (marks[i][0] === 'req') cold.get(name).push(marks[i][1] - marks[i - 1][1]);
    }
    const start = performance.now();
    for (let chain = 0; chain < 200; chain++) await run(0, []);
    warm.get(name).push(((performance.now() - start) / (200 * STEPS)) * 1000);
  }
}
console.log(`## a deadline per call: answer → next request after a ${L} ms wait (median), and per call warm (${STEPS} calls per chain, best of ${ROUNDS} rounds warm)`);
console.log('| variant | cold: answer → next request (µs) | warm: per call (µs) |');
console.log('|---|---:|---:|');
for (const name of Object.keys(variants)) console.log(`| ${name} | ${(median(cold.get(name)) * 1000).toFixed(0)} | ${Math.min(...warm.get(name)).toFixed(1)} |`);
