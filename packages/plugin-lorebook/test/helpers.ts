import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ActivateWorldInfoInput, type Lorebook, type WorldInfoActivation, activateWorldInfo, importWorldInfo } from '../src/index.js';

/**
 * A book from ST-shaped entries (through the real importer, so ST's defaults apply). Each entry
 * gets `uid` = its index unless it sets one.
 */
export function book(entries: readonly Record<string, unknown>[], name = 'world', scope: Lorebook['scope'] = 'global'): Lorebook {
  const record = Object.fromEntries(entries.map((entry, index) => [String(entry['uid'] ?? index), { uid: index, ...entry }]));
  return importWorldInfo({ entries: record }, { name, scope }).book;
}

/** Runs an activation and returns the uids that fired, in placement order. */
export function fired(input: Partial<ActivateWorldInfoInput> & Pick<ActivateWorldInfoInput, 'books'>): string[] {
  return run(input).entries.map((entry) => entry.uid);
}

/** Runs an activation with empty messages/input defaults. */
export function run(input: Partial<ActivateWorldInfoInput> & Pick<ActivateWorldInfoInput, 'books'>): WorldInfoActivation {
  return activateWorldInfo({ messages: [], input: '', ...input });
}

/** The repository root (the directory with pnpm-workspace.yaml above this file). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('repository root not found');
    dir = parent;
  }
  return dir;
}

/** `<repo>/../shared/corpus`. */
export const CORPUS = join(repoRoot(), '..', 'shared', 'corpus');
