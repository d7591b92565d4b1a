import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The folder holding `initdb`, `pg_ctl` and `postgres`: `$TROUPE_PG_BIN`, else the newest
 * Debian layout `/usr/lib/postgresql/<major>/bin` (not on PATH there), else `initdb` on PATH.
 * @returns the folder, or undefined when no PostgreSQL server binaries are installed
 */
export function findPostgresBin(): string | undefined {
  const explicit = process.env.TROUPE_PG_BIN;
  if (explicit) return existsSync(join(explicit, 'initdb')) ? explicit : undefined;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const majors = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name) && existsSync(join(debian, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return join(debian, majors[0], 'bin');
  }
  try {
    const found = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    return found ? dirname(found) : undefined;
  } catch {
    return undefined;
  }
}
