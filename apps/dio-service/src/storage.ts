import type { TreeStore } from '@troupe/kernel';
import { fsStorage } from '@troupe/storage-fs';
import { postgresStorage } from '@troupe/storage-postgres';

/** The service's durable tree store and how to let go of it. */
export interface OpenedTreeStore {
  readonly trees: TreeStore;
  /** Closes connections (nothing for the filesystem). */
  close(): Promise<void>;
}

/**
 * Opens the durable tree store: PostgreSQL when `databaseUrl` is set (`@troupe/storage-postgres`,
 * migrated on start; several service processes can share it), else the filesystem under `dataDir`
 * (`@troupe/storage-fs`: atomic writes, revision checks, cross-process locks, crash recovery).
 * @param config - the service's data directory and optional database URL
 * @returns the store
 */
export async function openTreeStore(config: { readonly dataDir: string; readonly databaseUrl?: string }): Promise<OpenedTreeStore> {
  if (!config.databaseUrl) return { trees: fsStorage({ root: config.dataDir }).trees, close: async () => {} };
  const storage = postgresStorage({ connectionString: config.databaseUrl, applicationName: 'troupe-dio-service' });
  try {
    await storage.migrate();
  } catch (error) {
    await storage.close();
    throw error;
  }
  return { trees: storage.trees, close: () => storage.close() };
}
