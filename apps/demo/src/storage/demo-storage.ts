import { join } from 'node:path';
import type { SessionLog, TreeStore } from '@troupe/kernel';
import { fsStorage } from '@troupe/storage-fs';
import { postgresStorage, type SessionEventsUpdate, type Unsubscribe, type WatchOptions } from '@troupe/storage-postgres';

/** The session log the demo needs: the port plus removal and rescue of damaged logs. */
export type DemoSessionLog = SessionLog & {
  delete(sessionId: string): Promise<boolean>;
  salvage(sessionId: string): Promise<{ readonly jsonl: string; readonly skippedLines: readonly number[] }>;
};

/** Where the demo keeps story workspaces and sessions. */
export interface DemoStorage {
  /** `fs` (the data folder) or `postgres` (`TROUPE_DATABASE_URL`). */
  readonly kind: 'fs' | 'postgres';
  /** For messages: the folder or the database (password left out). */
  readonly where: string;
  readonly trees: TreeStore;
  readonly sessions: DemoSessionLog;
  /**
   * New events of a session from any process (PostgreSQL only: other servers on the database);
   * undefined on the filesystem, where one process serves the data folder.
   */
  readonly watchSession: ((sessionId: string, listener: (update: SessionEventsUpdate) => void, options?: WatchOptions) => Promise<Unsubscribe>) | undefined;
  close(): Promise<void>;
}

/**
 * Opens the demo's storage: PostgreSQL when `TROUPE_DATABASE_URL` is set (migrated here: the
 * demo is its own deploy step), else the filesystem under `dataDir`. Characters, presets, chats
 * and settings stay in `dataDir` either way.
 * @param dataDir - the data folder
 * @param env - environment (`TROUPE_DATABASE_URL`)
 */
export async function openDemoStorage(dataDir: string, env: Readonly<Record<string, string | undefined>>): Promise<DemoStorage> {
  const url = env.TROUPE_DATABASE_URL;
  if (!url) {
    const storage = fsStorage({ root: dataDir });
    return { kind: 'fs', where: join(dataDir), trees: storage.trees, sessions: storage.sessions, watchSession: undefined, close: async () => {} };
  }
  const storage = postgresStorage({ connectionString: url, applicationName: 'troupe-demo', ...databaseTuning(env) });
  try {
    await storage.migrate();
  } catch (error) {
    await storage.close();
    throw error;
  }
  return {
    kind: 'postgres',
    where: redactPassword(url),
    trees: storage.trees,
    sessions: storage.sessions,
    watchSession: (sessionId, listener, options) => storage.live.watchSession(sessionId, listener, options),
    close: () => storage.close(),
  };
}

// Optional tuning from the environment; a value that is not a number is passed on as NaN, so
// the storage's option check names the variable's option (PG_INVALID_OPTIONS) instead of ignoring it.
const TUNING = {
  TROUPE_DATABASE_POOL_SIZE: 'poolSize',
  TROUPE_DATABASE_STATEMENT_TIMEOUT_MS: 'statementTimeoutMs',
  TROUPE_DATABASE_RECONNECT_ATTEMPTS: 'reconnectAttempts',
  TROUPE_DATABASE_RECONNECT_DELAY_MS: 'reconnectDelayMs',
} as const;

/**
 * `TROUPE_DATABASE_POOL_SIZE`, `…_STATEMENT_TIMEOUT_MS`, `…_RECONNECT_ATTEMPTS` and
 * `…_RECONNECT_DELAY_MS` as storage options (unset ones keep the storage's defaults).
 * @param env - the environment
 */
export function databaseTuning(env: Readonly<Record<string, string | undefined>>): Partial<Record<(typeof TUNING)[keyof typeof TUNING], number>> {
  const options: Partial<Record<(typeof TUNING)[keyof typeof TUNING], number>> = {};
  for (const [name, option] of Object.entries(TUNING) as [keyof typeof TUNING, (typeof TUNING)[keyof typeof TUNING]][]) {
    const value = env[name];
    if (value !== undefined && value !== '') options[option] = Number(value);
  }
  return options;
}

/** A connection string fit for a log line: the password replaced by `***`. */
export function redactPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the PostgreSQL database';
  }
}
