// The BENCH_BEFORE mode shared by the story benches here: the calling bench file is copied into
// the older checkout's tests/storage-bench (so its imports resolve to that checkout's packages) and
// both copies run alternately, before then after, for BENCH_ROUNDS rounds (default 2), each in a
// fresh process with BENCH_LABEL set ("before, round 1", …) and BENCH_BEFORE unset.
import { spawnSync } from 'node:child_process';
import { constants, copyFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * When BENCH_BEFORE names a checkout, runs the bench at `benchUrl` there and here, alternating,
 * then exits the process; otherwise returns at once.
 * @param {string} benchUrl - the calling bench's `import.meta.url`
 */
export function runBeforeAfterIfAsked(benchUrl) {
  if (!process.env.BENCH_BEFORE) return;
  const self = fileURLToPath(benchUrl);
  const copy = join(process.env.BENCH_BEFORE, 'tests', 'storage-bench', `${basename(self, '.mjs')}.ab-${process.pid}.mjs`);
  copyFileSync(self, copy);
  // The copy imports this helper too: the older checkout may not have it yet.
  const helperCopy = join(process.env.BENCH_BEFORE, 'tests', 'storage-bench', 'before-after.mjs');
  let placedHelper = false;
  try {
    copyFileSync(fileURLToPath(import.meta.url), helperCopy, constants.COPYFILE_EXCL);
    placedHelper = true;
  } catch {
    // it has one already
  }
  try {
    for (let round = 1; round <= Number(process.env.BENCH_ROUNDS ?? 2); round++) {
      for (const [label, file] of [
        ['before', copy],
        ['after', self],
      ]) {
        const env = { ...process.env, BENCH_LABEL: `${label}, round ${round}` };
        delete env.BENCH_BEFORE;
        spawnSync(process.execPath, [file], { stdio: 'inherit', env });
      }
    }
  } finally {
    rmSync(copy, { force: true });
    if (placedHelper) rmSync(helperCopy, { force: true });
  }
  process.exit(0);
}
