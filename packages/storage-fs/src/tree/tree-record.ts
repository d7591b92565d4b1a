import { KernelStorageError } from '@troupe/kernel';
import * as z from 'zod';
import { atomicWriteFile } from '../fs/atomic-write.js';
import { readFileBytes } from '../fs/read-file.js';
import { errorCode, type StorageFs } from '../fs/storage-fs.js';
import type { TreeLayout } from './tree-layout.js';

const FileEntrySchema = z.object({
  /** SHA-256 of the content; null after an append until the next full read fills it in. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  /** `ino:size:mtimeNs:ctimeNs` when the store last wrote or verified the file. */
  signature: z.string(),
});

/** `.troupe/record.json`: the tree's commit record. */
export const TreeRecordSchema = z.object({
  format: z.literal(1),
  revision: z.number().int().min(1),
  files: z.record(z.string(), FileEntrySchema),
});
/** The parsed commit record: format, the tree's revision, and per caller file its hash and stat signature. */
export type TreeRecord = z.infer<typeof TreeRecordSchema>;
/** One caller file in the commit record: `sha256` (null until recomputed after an append) and `signature`. */
export type FileEntry = z.infer<typeof FileEntrySchema>;

/** `.troupe/intent.json`: a change whose data is durable but not yet in place. */
export const TreeIntentSchema = z.object({
  format: z.literal(1),
  revision: z.number().int().min(1),
  /** Whole-file replacements: `stage` is a temp file in `.troupe/`, null deletes the target. */
  writes: z.array(z.object({ path: z.string(), stage: z.string().nullable() })),
  /** Appends: truncate to `baseSize`, then write `text` there (idempotent on replay). */
  appends: z.array(z.object({ path: z.string(), baseSize: z.number().int().min(0), text: z.string() })),
  /** The tree's files after the change and their hashes (null when not computed). */
  files: z.record(z.string(), z.string().nullable()),
  /** The settlement this change records, if any. */
  settled: z.object({ marker: z.string(), digest: z.string() }).nullable(),
});
/** The parsed intent: everything needed to roll a change forward after a crash. */
export type TreeIntent = z.infer<typeof TreeIntentSchema>;

/**
 * Reads and validates a JSON file from the store's private folder.
 * @param fs - file-system layer
 * @param path - the file
 * @param schema - what it must contain
 * @returns the parsed value, or undefined when the file does not exist
 * @throws {KernelStorageError} TREE_CORRUPT when it is not what the schema says
 */
export async function readJsonFile<T>(fs: StorageFs, path: string, schema: z.ZodType<T>): Promise<T | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFileBytes(fs, path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw new KernelStorageError('TREE_CORRUPT', `Cannot read ${path} (${errorCode(error)})`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new KernelStorageError('TREE_CORRUPT', `${path} is not valid JSON; restore it from a backup or delete the tree`, { cause: error });
  }
  const result = schema.safeParse(parsed);
  if (!result.success) throw new KernelStorageError('TREE_CORRUPT', `${path} has an unexpected shape: ${result.error.message}`);
  return result.data;
}

/**
 * Loads the commit record.
 * @param fs - file-system layer
 * @param layout - the tree
 * @returns the record
 * @throws {KernelStorageError} TREE_NOT_FOUND when missing, TREE_CORRUPT when unreadable
 */
export async function readRecord(fs: StorageFs, layout: TreeLayout): Promise<TreeRecord> {
  const record = await readJsonFile(fs, layout.recordPath, TreeRecordSchema);
  if (!record) throw new KernelStorageError('TREE_NOT_FOUND', `There is no "${layout.treeId}"`);
  return record;
}

/**
 * Writes the commit record atomically.
 * @param fs - file-system layer
 * @param layout - the tree
 * @param record - the new record
 * @throws {KernelStorageError} STORAGE_IO
 */
export async function writeRecord(fs: StorageFs, layout: TreeLayout, record: TreeRecord): Promise<void> {
  await atomicWriteFile(fs, layout.metaDir, 'record.json', Buffer.from(JSON.stringify(record)));
}
