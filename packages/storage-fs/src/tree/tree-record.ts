import { KernelStorageError } from '@troupe/kernel';
import { SETTLE_MARKER_PATTERN } from '@troupe/kernel/storage';
import * as z from 'zod';
import { atomicWriteFile } from '../fs/atomic-write.js';
import { readFileBytes } from '../fs/read-file.js';
import { type EntryStat, errorCode, type StorageFs } from '../fs/storage-fs.js';
import { isTempName } from '../fs/temp-names.js';
import type { TreeLayout } from './tree-layout.js';
import { isTreePath } from './tree-paths.js';
import { lstatQuick } from '../fs/stat-now.js';

// Every store-private file is untrusted input: workspaces are copied, zipped, synced and put in
// git, so `.troupe/` may hold anything. Each path goes through the same validation as a player
// write, each stage through the temp-name pattern, and every size is bounded.

/** The largest `record.json` / `intent.json` read (a real one is ~100 bytes per file plus appends). */
export const MAX_PRIVATE_JSON_BYTES = 128 * 1024 * 1024;
/** The largest text one settlement appends to one file (checked on settle, and in an intent). */
export const MAX_APPEND_CHARS = 64 * 1024 * 1024;
/**
 * The longest file text an intent carries itself (64 Ki characters) instead of a staged copy:
 * a story turn's manifest stamp, a player's edit of a section. Larger files are staged.
 */
export const MAX_INLINE_WRITE_CHARS = 64 * 1024;
/** The most characters of file text one intent carries in all (1 Mi); the rest is staged. */
export const MAX_INLINE_CHARS_PER_CHANGE = 1024 * 1024;
/** The most files one tree may have (in the record, and in an intent). */
const MAX_FILES = 100_000;

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);
/** A caller path as a player write would accept it: never absolute, never `..`, never `.troupe`. */
const TreePathSchema = z.string().max(4096).refine(isTreePath, 'not a valid workspace path');

const FileEntrySchema = z.object({
  /** SHA-256 of the content; null after an append until the next full read fills it in. */
  sha256: Sha256Schema.nullable(),
  /** `ino:size:mtimeNs:ctimeNs` when the store last wrote or verified the file. */
  signature: z.string().max(200),
});

/** A record of path → value whose keys are all valid caller paths, and not too many. */
function pathRecord<T extends z.ZodType>(value: T) {
  return z
    .record(TreePathSchema, value)
    .refine((files) => Object.keys(files).length <= MAX_FILES, `more than ${MAX_FILES} files`);
}

/** `.troupe/record.json`: the tree's commit record. */
export const TreeRecordSchema = z.object({
  format: z.literal(1),
  revision: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  files: pathRecord(FileEntrySchema),
});
/** The parsed commit record: format, the tree's revision, and per caller file its hash and stat signature. */
export type TreeRecord = z.infer<typeof TreeRecordSchema>;
/** One caller file in the commit record: `sha256` (null until recomputed after an append) and `signature`. */
export type FileEntry = z.infer<typeof FileEntrySchema>;

/** `.troupe/intent.json`: a change whose data is durable but not yet in place. */
export const TreeIntentSchema = z.object({
  format: z.literal(1),
  revision: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  /**
   * Whole-file replacements: `stage` is a temp file in `.troupe/`, null deletes the target; a
   * small file's new text is carried as `content` instead (written into place on roll-forward).
   */
  writes: z
    .array(
      z.union([
        z.object({ path: TreePathSchema, stage: z.string().refine(isTempName, 'not a temp name of this store').nullable() }),
        z.object({ path: TreePathSchema, content: z.string().max(MAX_INLINE_WRITE_CHARS) }),
      ]),
    )
    .max(MAX_FILES),
  /** Appends: truncate to `baseSize`, then write `text` there (idempotent on replay). */
  appends: z
    .array(z.object({ path: TreePathSchema, baseSize: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), text: z.string().max(MAX_APPEND_CHARS) }))
    .max(MAX_FILES),
  /** The tree's files after the change and their hashes (null when not computed). */
  files: pathRecord(Sha256Schema.nullable()),
  /** The settlement this change records, if any. */
  settled: z.object({ marker: z.string().regex(SETTLE_MARKER_PATTERN), digest: Sha256Schema }).nullable(),
});
/** The parsed intent: everything needed to roll a change forward after a crash. */
export type TreeIntent = z.infer<typeof TreeIntentSchema>;

/**
 * Reads and validates a JSON file from the store's private folder.
 * @param fs - file-system layer
 * @param path - the file
 * @param schema - what it must contain
 * @param known - the file's `lstat`, when the caller just took it (not taken again then)
 * @returns the parsed value, or undefined when the file does not exist
 * @throws {KernelStorageError} TREE_CORRUPT when it is not what the schema says
 */
export async function readJsonFile<T>(fs: StorageFs, path: string, schema: z.ZodType<T>, known?: EntryStat): Promise<T | undefined> {
  let bytes: Buffer;
  try {
    const stat = known ?? (await lstatQuick(fs, path));
    if (!stat) return undefined;
    if (stat.kind !== 'file') throw new KernelStorageError('TREE_CORRUPT', `${path} is not a regular file (links are never followed); restore it from a backup or delete the workspace`);
    if (stat.size > MAX_PRIVATE_JSON_BYTES) throw new KernelStorageError('TREE_CORRUPT', `${path} is ${stat.size} bytes, more than a store file can be; restore it from a backup or delete the workspace`);
    bytes = await readFileBytes(fs, path);
  } catch (error) {
    if (KernelStorageError.isInstance(error)) throw error;
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
  if (!result.success) {
    const issues = result.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`);
    throw new KernelStorageError('TREE_CORRUPT', `${path} is damaged or was not written by this store (${issues.join('; ')}); nothing was changed. Restore it from a backup or delete the workspace.`);
  }
  return result.data;
}

/**
 * Loads the commit record.
 * @param fs - file-system layer
 * @param layout - the tree
 * @param known - the record's `lstat`, when the caller just took it
 * @returns the record
 * @throws {KernelStorageError} TREE_NOT_FOUND when missing, TREE_CORRUPT when unreadable
 */
export async function readRecord(fs: StorageFs, layout: TreeLayout, known?: EntryStat): Promise<TreeRecord> {
  const record = await readJsonFile(fs, layout.recordPath, TreeRecordSchema, known);
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
  await atomicWriteFile(fs, layout.metaDir, RECORD_FILE, recordBytes(record));
}

/** The commit record's file name in the store's private folder. */
export const RECORD_FILE = 'record.json';

/**
 * The bytes `record.json` holds for a record.
 * @param record - the record
 * @returns its JSON text as UTF-8
 */
export function recordBytes(record: TreeRecord): Buffer {
  return Buffer.from(JSON.stringify(record));
}
