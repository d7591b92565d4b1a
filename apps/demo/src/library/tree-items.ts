import { formatIssues, KernelStorageError, type TreeSnapshot, type TreeStore } from '@troupe/kernel';
import type * as z from 'zod';
import { LibraryError } from './library-error.js';

/**
 * Reads a tree, turning "no such tree" into `LIBRARY_NOT_FOUND` naming the kind of item.
 * @param trees - the store
 * @param id - the item id
 * @param kind - e.g. `character`
 * @returns the snapshot
 * @throws {LibraryError} LIBRARY_NOT_FOUND
 */
export async function readItem(trees: TreeStore, id: string, kind: string): Promise<TreeSnapshot> {
  try {
    return await trees.read(id);
  } catch (error) {
    if (KernelStorageError.isInstance(error) && (error.code === 'TREE_NOT_FOUND' || error.code === 'TREE_INVALID_ID')) {
      throw new LibraryError('LIBRARY_NOT_FOUND', `There is no ${kind} "${id}"`);
    }
    throw error;
  }
}

/**
 * Where an item's file is, relative to the data folder (`library/<folder>/<id>/<file>`): how error
 * messages name it, so the player can find it, as session errors name `sessions/<id>/events.jsonl`.
 * @param folder - the library's folder under `library/`, e.g. `characters`
 * @param id - the item id
 * @param file - the file in the item's tree
 * @returns the path
 */
export function itemFilePath(folder: string, id: string, file: string): string {
  return `library/${folder}/${id}/${file}`;
}

/**
 * Parses one JSON file of a stored item against its schema.
 * @param snapshot - the item's tree
 * @param path - the file
 * @param schema - its schema
 * @param folder - the library's folder under `library/` (for the message)
 * @returns the parsed value
 * @throws {LibraryError} LIBRARY_INVALID when the file is missing, not JSON, or off-schema (hand edits)
 */
export function itemJson<S extends z.ZodType>(snapshot: TreeSnapshot, path: string, schema: S, folder: string): z.output<S> {
  const where = itemFilePath(folder, snapshot.treeId, path);
  const text = snapshot.files[path];
  if (text === undefined) throw new LibraryError('LIBRARY_INVALID', `${where} is missing`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new LibraryError('LIBRARY_INVALID', `${where} is not valid JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new LibraryError('LIBRARY_INVALID', `${where}: ${formatIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * Commits writes, turning a stale `baseRevision` into `LIBRARY_REVISION_CONFLICT`.
 * @param trees - the store
 * @param id - the item id
 * @param baseRevision - the revision the edit was based on
 * @param writes - path → text (`null` deletes)
 * @returns the new snapshot
 * @throws {LibraryError} LIBRARY_REVISION_CONFLICT, LIBRARY_NOT_FOUND
 */
export async function commitItem(trees: TreeStore, id: string, baseRevision: number, writes: Record<string, string | null>): Promise<TreeSnapshot> {
  try {
    return await trees.commit(id, { baseRevision, writes });
  } catch (error) {
    if (KernelStorageError.isInstance(error) && error.code === 'TREE_REVISION_CONFLICT') {
      throw new LibraryError('LIBRARY_REVISION_CONFLICT', `"${id}" was changed since revision ${baseRevision}; nothing was saved — reload and apply your edit again`);
    }
    if (KernelStorageError.isInstance(error) && error.code === 'TREE_NOT_FOUND') throw new LibraryError('LIBRARY_NOT_FOUND', `There is no "${id}"`);
    throw error;
  }
}

/**
 * Every readable item of a store; items a hand edit broke are reported instead of failing the list.
 * @param trees - the store
 * @param read - reads one item
 * @returns the items and the ids that could not be read
 */
export async function listItems<T>(trees: TreeStore, read: (id: string) => Promise<T>): Promise<{ items: T[]; broken: { id: string; message: string }[] }> {
  const items: T[] = [];
  const broken: { id: string; message: string }[] = [];
  for (const id of await trees.list()) {
    try {
      items.push(await read(id));
    } catch (error) {
      if (!LibraryError.isInstance(error)) throw error;
      if (error.code !== 'LIBRARY_NOT_FOUND') broken.push({ id, message: error.message });
    }
  }
  return { items, broken };
}
