import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { atomicWriteFile, nodeStorageFs, type StorageFs } from '../src/index.js';
import { codeOf, tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

function tracingFs(overrides: Partial<StorageFs> = {}): { fs: StorageFs; trace: string[] } {
  const trace: string[] = [];
  const fs: StorageFs = { ...nodeStorageFs, ...overrides };
  const traced = Object.fromEntries(
    Object.entries(fs).map(([name, fn]) => [
      name,
      (...args: unknown[]) => {
        trace.push(name === 'open' && typeof args[1] === 'number' && (args[1] & 0o200) !== 0 ? 'open(wx)' : name);
        return (fn as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as unknown as StorageFs;
  return { fs: traced, trace };
}

describe('atomicWriteFile', () => {
  it('issues exactly open(wx) write* fsize fsync close rename fsyncDir', async () => {
    const { fs, trace } = tracingFs();
    await atomicWriteFile(fs, root, 'a.json', Buffer.from('{"ok":true}'));
    expect(trace).toEqual(['open(wx)', 'write', 'fsize', 'fsync', 'close', 'rename', 'fsyncDir']);
    expect(await readFile(join(root, 'a.json'), 'utf8')).toBe('{"ok":true}');
  });

  it('loops over short writes', async () => {
    const { fs } = tracingFs({ write: (fd, buffer, offset, length, position) => nodeStorageFs.write(fd, buffer, offset, Math.min(length, 7), position) });
    const text = 'x'.repeat(100);
    await atomicWriteFile(fs, root, 'a.md', Buffer.from(text));
    expect(await readFile(join(root, 'a.md'), 'utf8')).toBe(text);
  });

  const failures: [string, (calls: number) => StorageFs['write']][] = [
    ['a short write then no progress', (calls) => async (fd, buffer, offset, length, position) => (calls === 0 ? nodeStorageFs.write(fd, buffer, offset, Math.floor(length / 2), position) : 0)],
    ['a short write then ENOSPC', (calls) => async (fd, buffer, offset, length, position) => {
      if (calls === 0) return nodeStorageFs.write(fd, buffer, offset, Math.floor(length / 2), position);
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    }],
  ];
  for (const [label, make] of failures) {
    it(`leaves the target byte-identical and no temp after ${label}`, async () => {
      const before = Buffer.from(`{"old":"${'o'.repeat(5000)}"}`);
      await writeFile(join(root, 'manifest.json'), before);
      let calls = 0;
      const { fs, trace } = tracingFs({
        write: (...args) => {
          const result = make(calls)(...args);
          calls += 1;
          return result;
        },
      });
      expect(await codeOf(atomicWriteFile(fs, root, 'manifest.json', Buffer.from(`{"new":"${'n'.repeat(9000)}"}`)))).toBe('STORAGE_IO');
      expect(await readFile(join(root, 'manifest.json'))).toEqual(before);
      expect(await readdir(root)).toEqual(['manifest.json']);
      expect(trace).not.toContain('rename');
    });
  }
});
