import type { TreeStore } from '@troupe/kernel';
import { fsStorage } from '@troupe/storage-fs';

/**
 * Opens the durable tree store under `dataDir` (`@troupe/storage-fs`: atomic writes, revision
 * checks, cross-process locks, crash recovery).
 * @param dataDir - the service's data directory
 * @returns the store
 */
export async function openTreeStore(dataDir: string): Promise<TreeStore> {
  return fsStorage({ root: dataDir }).trees;
}
