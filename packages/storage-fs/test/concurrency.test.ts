import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { childEnv, tempRoot } from './helpers.js';

const run = promisify(execFile);
const STRESS = process.env.STRESS === '1';
const PROCESSES = 8;
const COMMITS = STRESS ? 50 : 20;

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

describe('no lost updates', () => {
  it('50 concurrent commits on one base: exactly 1 success and 49 conflicts, nothing else written', async () => {
    const { trees } = fsStorage({ root });
    await trees.create('s', { 'a.md': 'base' });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, index) => trees.commit('s', { baseRevision: 1, writes: { 'a.md': `writer ${index}`, [`only-${index}.md`]: 'x' } })),
    );
    const winners = results.filter((result) => result.status === 'fulfilled');
    expect(winners).toHaveLength(1);
    const codes = results.flatMap((result) => (result.status === 'rejected' ? [(result.reason as { code: string }).code] : []));
    expect(codes).toEqual(Array(49).fill('TREE_REVISION_CONFLICT'));
    const snapshot = await trees.read('s');
    expect(snapshot.revision).toBe(2);
    expect(Object.keys(snapshot.files).sort()).toHaveLength(2);
  });

  it(`${PROCESSES} processes × ${COMMITS} commits: revision 1 + ${PROCESSES * COMMITS}, 0 lost`, async () => {
    const { trees } = fsStorage({ root });
    await trees.create('shared', {});
    const outputs = await Promise.all(
      Array.from({ length: PROCESSES }, (_, worker) =>
        run(process.execPath, [join(import.meta.dirname, 'fixtures', 'commit-worker.mjs'), root, String(worker), String(COMMITS)], { env: childEnv() }),
      ),
    );
    const snapshot = await trees.read('shared');
    expect(snapshot.revision).toBe(1 + PROCESSES * COMMITS);
    for (let worker = 0; worker < PROCESSES; worker++) expect(snapshot.files[`counters/w${worker}.md`]).toBe(String(COMMITS));
    const conflicts = outputs.reduce((sum, output) => sum + (JSON.parse(output.stdout) as { conflicts: number }).conflicts, 0);
    // Reported for the record: conflicts are rejected, never silently merged.
    console.info(`cross-process: ${PROCESSES * COMMITS} commits, ${conflicts} conflicts rejected`);
  }, 120_000);
});
