// What this machine's file system costs, for reading the storage benches that follow it in
// `pnpm bench`: a story turn on @troupe/storage-fs makes ~16 file creations, ~110 lstats, 7 file
// fsyncs and 3 folder syncs, so its time moves with these costs, and they differ several times
// between boots of the same machine (file creation 10 µs on one boot, 0.2–1.2 ms on another).
// A before/after pair run on one boot is comparable; numbers from different boots are only
// comparable next to these.
// Each operation runs on the calling thread (as the stores' quick layer runs it), in batches in
// a fresh temp folder under BENCH_DIR (default the OS temp folder, where the benches put their
// stores); the table gives the median and the slowest batch's mean, in µs per operation.
import { closeSync, fsyncSync, lstatSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const BATCHES = Number(process.env.BENCH_FS_BATCHES ?? 9);
const PER_BATCH = Number(process.env.BENCH_FS_PER_BATCH ?? 100);
const SYNCS_PER_BATCH = Number(process.env.BENCH_FS_SYNCS_PER_BATCH ?? 20);

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'troupe-fs-costs-'));
let folders = 0;

/**
 * Runs `operation(state, i)` for i in [0, count) in `BATCHES` batches, each on the state
 * `prepare(folder, count)` makes in a fresh sub-folder (untimed, as is `release(state)` after it).
 * @returns µs per operation: the median batch's and the slowest batch's
 */
function measure(count, prepare, operation, release = () => undefined) {
  const perBatch = [];
  for (let batch = 0; batch < BATCHES; batch++) {
    const folder = join(dir, `b${folders++}`);
    mkdirSync(folder);
    const state = prepare(folder, count);
    const start = performance.now();
    for (let i = 0; i < count; i++) operation(state, i);
    perBatch.push(((performance.now() - start) * 1000) / count);
    release(state);
  }
  perBatch.sort((a, b) => a - b);
  return { median: perBatch[Math.floor(perBatch.length / 2)], worst: perBatch[perBatch.length - 1] };
}

/** The folder with `count` empty files `f0…` in it. */
function withFiles(folder, count) {
  for (let i = 0; i < count; i++) closeSync(openSync(join(folder, `f${i}`), 'wx'));
  return { folder };
}

const block = Buffer.alloc(1024, 'x');
const rows = [];
try {
  rows.push(['create a file (exclusive) + close', measure(PER_BATCH, (folder) => ({ folder }), ({ folder }, i) => closeSync(openSync(join(folder, `n${i}`), 'wx')))]);
  rows.push(['open an existing file + close', measure(PER_BATCH, withFiles, ({ folder }, i) => closeSync(openSync(join(folder, `f${i}`), 'r')))]);
  rows.push(['lstat', measure(PER_BATCH, withFiles, ({ folder }, i) => lstatSync(join(folder, `f${i}`)))]);
  rows.push(['rename within a folder', measure(PER_BATCH, withFiles, ({ folder }, i) => renameSync(join(folder, `f${i}`), join(folder, `g${i}`)))]);
  rows.push(['unlink', measure(PER_BATCH, withFiles, ({ folder }, i) => unlinkSync(join(folder, `f${i}`)))]);
  rows.push([
    'append 1 KiB + fsync',
    measure(
      SYNCS_PER_BATCH,
      (folder) => ({ fd: openSync(join(folder, 'log'), 'a') }),
      ({ fd }) => {
        writeSync(fd, block);
        fsyncSync(fd);
      },
      ({ fd }) => closeSync(fd),
    ),
  ]);
  rows.push([
    'rename + fsync of its folder',
    measure(
      SYNCS_PER_BATCH,
      (folder, count) => ({ ...withFiles(folder, count), fd: openSync(folder, 'r') }),
      ({ folder, fd }, i) => {
        renameSync(join(folder, `f${i}`), join(folder, `g${i}`));
        fsyncSync(fd);
      },
      ({ fd }) => closeSync(fd),
    ),
  ]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`## file-system costs on this machine (${BATCHES} batches, temp folder under ${process.env.BENCH_DIR ?? tmpdir()}, Node ${process.version})`);
console.log('| operation (on the calling thread) | µs each, median batch | slowest batch |');
console.log('|---|---:|---:|');
for (const [name, { median, worst }] of rows) console.log(`| ${name} | ${median.toFixed(1)} | ${worst.toFixed(1)} |`);
