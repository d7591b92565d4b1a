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
  const storage = postgresStorage({ connectionString: url, applicationName: 'troupe-demo' });
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
