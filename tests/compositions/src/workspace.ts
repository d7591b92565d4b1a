import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Root of the monorepo (this package lives in `tests/compositions`). */
export const WORKSPACE_ROOT = resolve(import.meta.dirname, '../../..');

/** A publishable workspace package. */
export interface PublicPackage {
  readonly name: string;
  readonly dir: string;
}

/**
 * Every non-private package under `packages/`, i.e. what would be published.
 * @returns name and absolute directory of each
 */
export function publicPackages(): PublicPackage[] {
  const packagesDir = join(WORKSPACE_ROOT, 'packages');
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => {
      const dir = join(packagesDir, entry.name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; private?: boolean };
      return { name: manifest.name, dir, private: manifest.private === true };
    })
    .filter((pkg) => !pkg.private)
    .map(({ name, dir }) => ({ name, dir }));
}

/**
 * Directory of a public package by its npm name.
 * @param name - e.g. `@troupe/kernel`
 * @returns the absolute directory
 * @throws {Error} when no public package has that name
 */
export function packageDir(name: string): string {
  const found = publicPackages().find((pkg) => pkg.name === name);
  if (!found) throw new Error(`no public workspace package named ${name}`);
  return found.dir;
}
