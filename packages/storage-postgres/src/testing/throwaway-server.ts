import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPostgresBin } from './find-postgres.js';

/** A throwaway PostgreSQL server listening only on a Unix socket in its temp folder. */
export interface ThrowawayServer {
  /** Connection string for the `troupe` superuser and the `postgres` database. */
  readonly url: string;
  /** The socket folder (also the data folder's parent). */
  readonly dir: string;
  /** Stops the server and removes its folder. */
  stop(): void;
}

// PostgreSQL refuses to run as root. Under root (CI), the server runs as `nobody`, which owns
// the temp folder; otherwise as the current user.
function asServerUser(): { prefix: string[]; uid?: number; gid?: number } {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return { prefix: [] };
  const uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim());
  return { prefix: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'], uid, gid };
}

/** Options of {@link startThrowawayServer}. */
export interface ThrowawayServerOptions {
  /**
   * Keep PostgreSQL's durability settings (fsync, synchronous commit) as in production; default
   * false (faster tests). Benchmarks set it, so numbers compare with a store that fsyncs.
   */
  readonly durable?: boolean;
}

/**
 * `initdb` into a fresh temp folder and `pg_ctl start` on a socket there (no TCP port, so
 * nothing collides with other servers on the machine). Durability settings are off unless
 * `durable`: the data is thrown away, and crash behaviour under test is the client's, not the disk's.
 * @param options - `durable`
 * @throws {Error} naming what to install when no PostgreSQL binaries are found
 */
export function startThrowawayServer(options: ThrowawayServerOptions = {}): ThrowawayServer {
  const bin = findPostgresBin();
  if (!bin) {
    throw new Error(
      'No PostgreSQL server binaries found (looked at $TROUPE_PG_BIN, /usr/lib/postgresql/*/bin and PATH). Install them (Debian: apt-get install postgresql), or set TROUPE_SKIP_PG=1 to skip the PostgreSQL tests.',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'troupe-pg-'));
  const user = asServerUser();
  if (user.uid !== undefined && user.gid !== undefined) chownSync(dir, user.uid, user.gid);
  const run = (tool: string, args: string[]) => {
    const [command, ...rest] = [...user.prefix, join(bin, tool), ...args];
    execFileSync(command as string, rest, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  };
  const data = join(dir, 'data');
  try {
    run('initdb', ['-D', data, '-U', 'troupe', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
    const fast = options.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'];
    const settings = [`-k ${dir}`, "-c listen_addresses=''", ...fast, '-c max_connections=300'];
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', settings.join(' '), 'start']);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Could not start a throwaway PostgreSQL from ${bin}: ${(error as { stderr?: Buffer }).stderr?.toString() ?? (error as Error).message}`);
  }
  return {
    url: `postgresql://troupe@localhost/postgres?host=${encodeURIComponent(dir)}`,
    dir,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
