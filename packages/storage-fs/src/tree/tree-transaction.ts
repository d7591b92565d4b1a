import { join } from 'node:path';
import { atomicWriteFile, renameIntoPlace, stageFile, writeFully } from '../fs/atomic-write.js';
import { CREATE_EXCLUSIVE, errorCode, type StorageFs, WRITE_NOFOLLOW } from '../fs/storage-fs.js';
import { tempName } from '../fs/temp-names.js';
import { KernelStorageError } from '@troupe/kernel';
import { assertWritablePath, ensureParentDirs } from './safe-paths.js';
import type { TreeLayout } from './tree-layout.js';
import {
  MAX_INLINE_CHARS_PER_CHANGE,
  MAX_INLINE_WRITE_CHARS,
  RECORD_FILE,
  readJsonFile,
  recordBytes,
  type TreeIntent,
  TreeIntentSchema,
  type TreeRecord,
  TreeRecordSchema,
} from './tree-record.js';
import type { SettledMarkers } from './settled-markers.js';
import { lstatQuick } from '../fs/stat-now.js';

/**
 * Checks the tree lock is still ours before a point of no return (see `HeldLock.assertHeld`).
 * @param what - what is about to happen, for the error message
 * @throws {KernelStorageError} STORAGE_IO when the lock was lost
 */
export type LockGuard = (what: string) => Promise<void>;

/** A change to apply as one revision. */
export interface TreeChange {
  /** The revision the change produces. */
  readonly revision: number;
  /** Whole-file replacements (null deletes). */
  readonly writes: ReadonlyMap<string, string | null>;
  /** Appends: `text` goes at `baseSize`. */
  readonly appends: readonly { path: string; baseSize: number; text: string }[];
  /** Every file of the tree after the change → its SHA-256 (null when not computed). */
  readonly files: Readonly<Record<string, string | null>>;
  /** The settlement marker and digest to record, or null for a plain commit. */
  readonly settled: { marker: string; digest: string } | null;
  /**
   * Stat signatures of the files as just scanned under the lock: a file the change neither
   * writes nor appends to keeps its signature in the new record without being stat'ed again.
   */
  readonly signatures?: Readonly<Record<string, string>>;
}

// How many staged files may wait for their fsync at once (each holds a file descriptor).
const STAGED_SYNCS_IN_FLIGHT = 64;

/**
 * Applies a change all-or-nothing across crashes:
 * 1. stage every big new file's content as a temp in `.troupe/` (the temps and `.troupe/`
 *    fsync'ed, at once); a small file's text (≤ {@link MAX_INLINE_WRITE_CHARS}, up to
 *    {@link MAX_INLINE_CHARS_PER_CHANGE} per change) goes into the intent instead, as appends do,
 *    so a change of small files has nothing to stage and waits for no sync before step 2;
 * 2. write `intent.json` atomically: the commit point — from here on, recovery rolls forward;
 * 3. move staged files into place, write the intent's small files into place, write appends,
 *    record the marker (the folder syncs, the small files' and the appends' fsyncs at once, all
 *    of them before 4);
 * 4. rename `record.json` (the new revision) into place; the returned `finish` then syncs its
 *    folder and removes the intent (not synced: an intent the record has caught up with is a
 *    finished change, which recovery only removes). The change is durable before `finish`, by
 *    its intent: until the intent is gone a crash replays the change, which is idempotent.
 * A crash before 2 leaves only temps, which the sweep removes (roll back). The lock is re-checked
 * right before 2 (a holder that lost its lock writes nothing) and before appends in 3.
 * @param fs - file-system layer
 * @param layout - the tree
 * @param markers - the tree's marker cache
 * @param change - what to apply
 * @param guard - re-checks the tree lock is still ours
 * @returns the new record, and `finish` (step 4's tail), to run under the same lock before any
 * other change; a failed `finish` leaves the intent, which the next caller finds finished
 * @throws {KernelStorageError} STORAGE_IO when a step fails or the lock was lost (before the
 * commit point nothing is written; after it, the next caller rolls the change forward)
 */
export async function applyChange(fs: StorageFs, layout: TreeLayout, markers: SettledMarkers, change: TreeChange, guard: LockGuard): Promise<AppliedChange> {
  const writes: TreeIntent['writes'] = [];
  // Every staged copy's data and the folder entries naming them reach the disk before the intent
  // is written; among themselves they need no order, so their syncs overlap — at most
  // STAGED_SYNCS_IN_FLIGHT at once, since each keeps its file open until it is synced (a change
  // may write up to 100 000 files).
  const syncs: Promise<void>[] = [];
  let inlineLeft = MAX_INLINE_CHARS_PER_CHANGE;
  let intent: TreeIntent;
  try {
    for (const [path, content] of change.writes) {
      if (content === null) {
        writes.push({ path, stage: null });
        continue;
      }
      if (content.length <= MAX_INLINE_WRITE_CHARS && content.length <= inlineLeft) {
        // Carried by the intent: nothing of it has to reach the disk before the commit point.
        inlineLeft -= content.length;
        writes.push({ path, content });
        continue;
      }
      if (syncs.length >= STAGED_SYNCS_IN_FLIGHT) await allDurable(syncs.splice(0));
      const stage = tempName();
      writes.push({ path, stage });
      const fd = await createWritten(fs, join(layout.metaDir, stage), content);
      syncs.push(syncAndClose(fs, fd));
    }
    if (syncs.length > 0) syncs.push(inFlight(fs.fsyncDir(layout.metaDir)));
    await allDurable(syncs);
    intent = {
      format: 1,
      revision: change.revision,
      writes,
      appends: [...change.appends],
      files: { ...change.files },
      settled: change.settled,
    };
    await guard('the commit point (nothing was written)');
    await atomicWriteFile(fs, layout.metaDir, 'intent.json', Buffer.from(JSON.stringify(intent)));
  } catch (error) {
    // Before the intent exists nothing is visible: roll back by dropping the staged copies (once
    // no sync of them is still running).
    await Promise.allSettled(syncs);
    for (const write of writes) if ('stage' in write && write.stage) await fs.unlink(join(layout.metaDir, write.stage)).catch(() => undefined);
    throw error;
  }
  return rollForward(fs, layout, markers, intent, guard, change.signatures);
}

/**
 * Finishes an interrupted change (idempotent: safe to run again after another crash).
 * @param fs - file-system layer
 * @param layout - the tree
 * @param markers - the tree's marker cache
 * @param guard - re-checks the tree lock is still ours
 * @returns the record written, or undefined when there was no intent
 * @throws {KernelStorageError} TREE_CORRUPT when the intent is damaged, STORAGE_IO
 */
export async function recoverIntent(fs: StorageFs, layout: TreeLayout, markers: SettledMarkers, guard: LockGuard): Promise<TreeRecord | undefined> {
  const intent = await readJsonFile(fs, layout.intentPath, TreeIntentSchema);
  if (!intent) return undefined;
  // The record is written (and synced) only once a change is complete, and the intent's removal
  // after it is not synced: a record at the intent's revision or later means that change is done.
  const record = await readJsonFile(fs, layout.recordPath, TreeRecordSchema).catch(() => undefined);
  if (record && record.revision >= intent.revision) {
    await guard('removing the intent of a finished change');
    await fs.unlink(layout.intentPath).catch((error: unknown) => {
      if (errorCode(error) !== 'ENOENT') throw error;
    });
    return undefined;
  }
  await guard('recovering an interrupted change');
  const applied = await rollForward(fs, layout, markers, intent, guard);
  await applied.finish();
  return applied.record;
}

/** A change whose data and record are in place: durable by its intent until `finish` removed it. */
export interface AppliedChange {
  readonly record: TreeRecord;
  /** Syncs the folder holding the new `record.json`, then removes the intent. */
  readonly finish: () => Promise<void>;
}

async function rollForward(fs: StorageFs, layout: TreeLayout, markers: SettledMarkers, intent: TreeIntent, guard: LockGuard, signatures: Readonly<Record<string, string>> = {}): Promise<AppliedChange> {
  await checkIntentTargets(fs, layout, intent);
  // The folders whose entries the moves, writes and deletes changed (each synced once) and the
  // small files written into place reach the disk while the appends below do (all of it before
  // the record, which is what needs the order).
  const movedIn = new Set<string>();
  const carried: Promise<void>[] = [];
  try {
    await moveIntoPlace(fs, layout, intent, movedIn, carried);
  } catch (error) {
    await Promise.allSettled(carried);
    throw error;
  }
  const placedSyncs = [...carried, ...[...movedIn].map((dir) => inFlight(fs.fsyncDir(dir)))];
  try {
    // Appends truncate to a recorded size: never do that beside another holder.
    if (intent.appends.length > 0) await guard('appending (the next caller completes the change)');
  } catch (error) {
    await Promise.allSettled(placedSyncs);
    throw error;
  }
  const appended: { fd: number; dir: string; created: boolean }[] = [];
  let record: TreeRecord;
  let recordTemp: Promise<string> | undefined;
  try {
    for (const { path, baseSize, text } of intent.appends) {
      const dir = await ensureParentDirs(fs, layout.dir, path);
      const fd = await fs.open(join(layout.dir, path), WRITE_NOFOLLOW, 0o644);
      appended.push({ fd, dir, created: baseSize === 0 });
      // Truncate first so a replay after a crash mid-append writes the block exactly once.
      await fs.ftruncate(fd, baseSize);
      await writeFully(fs, fd, Buffer.from(text, 'utf8'), baseSize);
    }
    // Every file now has its final size and times (a sync changes neither): the record is known,
    // and its temp is written and synced along with the rest; only its rename waits for them.
    record = await recordAfter(fs, layout, intent, signatures);
    recordTemp = inFlight(stageFile(fs, layout.metaDir, RECORD_FILE, recordBytes(record)));
    // The blocks, the marker and the record's temp reach the disk together (their fsyncs overlap
    // instead of queueing one after another); all of them before the record is renamed into
    // place. A crash in between leaves the intent, whose replay writes the same blocks and skips
    // a marker already recorded.
    await allDurable([
      ...placedSyncs.splice(0),
      ...appended.map(({ fd }) => fs.fsync(fd)),
      (async () => {
        if (!intent.settled) return;
        await markers.refresh(fs, layout);
        await markers.append(fs, layout, intent.settled.marker, intent.settled.digest, intent.revision);
      })(),
      recordTemp,
    ]);
  } catch (error) {
    // A record staged beside a failed step is dropped (the intent's replay writes its own).
    const staged = await recordTemp?.catch(() => undefined);
    if (staged) await fs.unlink(staged).catch(() => undefined);
    throw error;
  } finally {
    // Syncs not awaited above (an append failed before): settled before anything else runs.
    await Promise.allSettled(placedSyncs);
    for (const { fd } of appended) await fs.close(fd);
  }
  const staged = await recordTemp;
  try {
    for (const { dir, created } of appended) if (created) await fs.fsyncDir(dir);
  } catch (error) {
    await fs.unlink(staged).catch(() => undefined);
    throw error;
  }
  await renameIntoPlace(fs, layout.metaDir, staged, RECORD_FILE);
  const finish = async () => {
    // The intent goes only once the record's new name is durable: before that, a power cut may
    // bring back the old record, and the intent is what replays the change then.
    await fs.fsyncDir(layout.metaDir);
    // Not synced: once the record names the intent's revision, an intent that reappears after a
    // power cut is recognised as finished and only removed (see `recoverIntent`).
    await fs.unlink(layout.intentPath);
  };
  return { record, finish };
}

/**
 * Step 3's whole-file part: deletes, staged files renamed into place, and the small files the
 * intent carries written into place (each through a fresh temp renamed over its target, so a
 * reader never sees half a file). Idempotent: a staged file already moved is skipped, a carried
 * one is written again.
 * @param movedIn - gets every folder whose entries changed (synced by the caller)
 * @param carried - gets the started sync of every carried file (awaited by the caller, before
 * the record; at most {@link STAGED_SYNCS_IN_FLIGHT} of them run at once)
 */
async function moveIntoPlace(fs: StorageFs, layout: TreeLayout, intent: TreeIntent, movedIn: Set<string>, carried: Promise<void>[]): Promise<void> {
  // The carried files' syncs not waited for yet (each holds its file open).
  const running: Promise<void>[] = [];
  for (const write of intent.writes) {
    const target = join(layout.dir, write.path);
    if ('content' in write) {
      if (running.length >= STAGED_SYNCS_IN_FLIGHT) await allDurable(running.splice(0));
      const dir = await ensureParentDirs(fs, layout.dir, write.path);
      const { synced } = await writeCarried(fs, layout.metaDir, target, write.content);
      running.push(synced);
      carried.push(synced);
      movedIn.add(dir);
      continue;
    }
    if (write.stage === null) {
      try {
        await fs.unlink(target);
        movedIn.add(join(target, '..'));
      } catch (error) {
        // Already gone (deleted before a crash, or never existed): nothing to do.
        if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') throw error;
      }
      continue;
    }
    const staged = join(layout.metaDir, write.stage);
    if (!(await lstatQuick(fs, staged))) continue; // moved before the crash
    const dir = await ensureParentDirs(fs, layout.dir, write.path);
    await fs.rename(staged, target);
    movedIn.add(dir);
  }
}

/**
 * Writes a file the intent carries over `target`: a fresh temp in `.troupe/`, renamed into place
 * before its data is synced. That order is safe because the intent stays until the record names
 * its revision: a power cut before the sync leaves the old, an empty or the new file there, and
 * the replay writes it again; a reader without the lock sees the intent and waits for the lock.
 * @returns `synced`: the file's fsync, already started (it closes the file)
 */
async function writeCarried(fs: StorageFs, metaDir: string, target: string, content: string): Promise<{ synced: Promise<void> }> {
  const temp = join(metaDir, tempName());
  const fd = await createWritten(fs, temp, content);
  try {
    await fs.rename(temp, target);
  } catch (error) {
    await fs.close(fd).catch(() => undefined);
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
  return { synced: syncAndClose(fs, fd) };
}

/**
 * A new file (exclusive: never a planted one) holding `content`, still open and not yet synced.
 * @returns its descriptor (closed here when the write fails)
 */
async function createWritten(fs: StorageFs, path: string, content: string): Promise<number> {
  const fd = await fs.open(path, CREATE_EXCLUSIVE, 0o644);
  try {
    await writeFully(fs, fd, Buffer.from(content, 'utf8'), 0);
    return fd;
  } catch (error) {
    await fs.close(fd).catch(() => undefined);
    throw error;
  }
}

/** Starts the sync of an open file and closes it afterwards (see {@link inFlight}). */
function syncAndClose(fs: StorageFs, fd: number): Promise<void> {
  return inFlight(fs.fsync(fd).finally(() => fs.close(fd)));
}

/**
 * The record of a change whose files are all written: each file's hash from the intent, with the
 * signature it has now (or, for a file the change did not touch, the one scanned under the lock).
 */
async function recordAfter(fs: StorageFs, layout: TreeLayout, intent: TreeIntent, signatures: Readonly<Record<string, string>>): Promise<TreeRecord> {
  const touched = new Set([...intent.writes.map((write) => write.path), ...intent.appends.map((append) => append.path)]);
  const files: TreeRecord['files'] = {};
  for (const [path, sha256] of Object.entries(intent.files)) {
    const known = touched.has(path) ? undefined : signatures[path];
    if (known !== undefined) {
      files[path] = { sha256, signature: known };
      continue;
    }
    const stat = await lstatQuick(fs, join(layout.dir, path));
    if (stat?.kind === 'file') files[path] = { sha256, signature: stat.signature };
  }
  return { format: 1, revision: intent.revision, files };
}

/**
 * Marks a sync that is awaited later (after other steps) as handled now, so that failing before
 * the caller gets to it is not an unhandled rejection; the caller still sees the failure.
 * @param sync - a started sync
 * @returns the same promise
 */
function inFlight<T>(sync: Promise<T>): Promise<T> {
  sync.catch(() => undefined);
  return sync;
}

/**
 * Waits for every sync, and fails with the first failure once all of them settled (nothing of
 * the change is left running when the caller gives up).
 * @param syncs - fsyncs and folder syncs that may run in any order among themselves
 */
async function allDurable(syncs: readonly Promise<unknown>[]): Promise<void> {
  const settled = await Promise.allSettled(syncs);
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Before anything is touched: every target must be reachable without a link (a folder of the
 * tree replaced by a symlink would carry a delete or an append outside), and every stage that is
 * still there must be a regular file of ours.
 * @throws {KernelStorageError} TREE_CORRUPT naming the intent and the offending path
 */
async function checkIntentTargets(fs: StorageFs, layout: TreeLayout, intent: TreeIntent): Promise<void> {
  const refuse = (path: string, why: string) =>
    new KernelStorageError('TREE_CORRUPT', `${layout.intentPath}: cannot apply the change to "${path}" (${why}); nothing was changed. Restore the workspace from a backup or delete it.`);
  for (const { path } of [...intent.writes, ...intent.appends]) {
    try {
      await assertWritablePath(fs, layout.dir, path);
    } catch (error) {
      if (KernelStorageError.isInstance(error)) throw refuse(path, error.message);
      throw error;
    }
  }
  for (const write of intent.writes) {
    if (!('stage' in write) || write.stage === null) continue;
    const stat = await lstatQuick(fs, join(layout.metaDir, write.stage));
    if (stat && stat.kind !== 'file') throw refuse(write.path, `its staged copy ${write.stage} is not a regular file`);
  }
}
