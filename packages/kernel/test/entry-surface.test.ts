import { readFileSync } from 'node:fs';
import * as kernel from '@troupe/kernel';
import { describe, expect, it } from 'vitest';

// The main entry is what a plugin or app author reads first: keep it small and documented.
describe('the kernel main entry', () => {
  const runtimeExports = Object.keys(kernel).sort();
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const apiTable = readme.slice(readme.indexOf('## API'), readme.indexOf('\n## ', readme.indexOf('## API') + 1));

  it('has at most 25 runtime exports', () => {
    expect(runtimeExports.length, runtimeExports.join(', ')).toBeLessThanOrEqual(25);
  });

  it('documents every runtime export in the README API table', () => {
    const undocumented = runtimeExports.filter((name) => !apiTable.includes(`\`${name}`));
    expect(undocumented).toEqual([]);
  });

  it('keeps storage rules and helpers on their subpaths', async () => {
    for (const name of ['stampManifestRevision', 'appendSettleBlock', 'sha256Hex', 'abortReason', 'linkedController']) expect(runtimeExports).not.toContain(name);
    const storage = await import('@troupe/kernel/storage');
    const util = await import('@troupe/kernel/util');
    expect(typeof storage.stampManifestRevision).toBe('function');
    expect(typeof util.sha256Hex).toBe('function');
  });
});
