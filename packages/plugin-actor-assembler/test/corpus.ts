import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The repository root is the nearest folder with pnpm-workspace.yaml; the corpus lies beside the
// clone (`<root>/../shared/corpus`), never inside it.
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('repository root (pnpm-workspace.yaml) not found');
    dir = parent;
  }
  return dir;
}

/** Absolute path of `<repo root>/../shared/corpus/<sub>`. */
export function corpusPath(sub: string): string {
  return join(repoRoot(), '..', 'shared', 'corpus', sub);
}

/** Every `.json` file of a corpus folder, as `[file name, text]`, sorted by name. */
export function corpusJsonFiles(folder: string): [string, string][] {
  const dir = corpusPath(folder);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => [name, readFileSync(join(dir, name), 'utf8')]);
}
