import type { TreeStore } from '@troupe/kernel';

/** What {@link transferWorkspace} copied. */
export interface TransferredWorkspace {
  readonly id: string;
  /** Files copied (manifest included). */
  readonly files: number;
  /** The source's revision that was copied. */
  readonly fromRevision: number;
}

/**
 * Copies one workspace's files from one store to another (filesystem ↔ PostgreSQL). The copy is a
 * new tree at revision 1 in the target (revisions are per store); the source is not changed.
 * @param from - the store holding the workspace
 * @param to - the store to create it in
 * @param id - the workspace id
 * @throws {KernelStorageError} TREE_NOT_FOUND in the source, TREE_EXISTS in the target (nothing written)
 */
export async function transferWorkspace(from: TreeStore, to: TreeStore, id: string): Promise<TransferredWorkspace> {
  const source = await from.read(id);
  await to.create(id, source.files);
  return { id, files: Object.keys(source.files).length, fromRevision: source.revision };
}
