import { join } from 'node:path';
import { appendSettleBlock, MANIFEST_PATH, settlementDigest, stampManifestRevision, validateTreeCommit, validateTreeFiles, validateTreeId, validateTreeSettlement } from '@troupe/kernel/storage';
import { KernelStorageError, RevisionConflictError, type SettleResult, type TreeCommit, type TreeSettlement, type TreeSnapshot, type TreeStore } from '@troupe/kernel';
import { sha256Hex } from '@troupe/kernel/util';
import { asIoError } from '../fs/atomic-write.js';
import { type HeldLock, withFileLock } from '../fs/file-lock.js';
import { KeyedQueue } from '../fs/keyed-queue.js';
import { mapLimited } from '../fs/map-limited.js';
import { readFileBytes } from '../fs/read-file.js';
import type { StorageFs } from '../fs/storage-fs.js';
import { assertWritablePath } from './safe-paths.js';
import { createTree, deleteTree, listTrees } from './tree-lifecycle.js';
import { type TreeLayout, treeLayout } from './tree-layout.js';
import { type FileEntry, MAX_APPEND_CHARS, readRecord, type TreeRecord } from './tree-record.js';
import { detectDrift, scanTree } from './tree-scan.js';
import { SettledMarkers } from './settled-markers.js';
import { sweepTemps } from '../fs/sweep-temps.js';
import { applyChange, type LockGuard, recoverIntent } from './tree-transaction.js';

/** Options for {@link FsTreeStore}. */
export interface FsTreeStoreOptions {
  /** Folder holding one folder per tree (`<root>/story-workspaces`). */
  readonly dir: string;
  /** File-system layer (tests inject faults). */
  readonly fs: StorageFs;
  /** How long to wait for another process's lock before STORAGE_IO (default 30 s). */
  readonly lockTimeoutMs?: number;
  /**
   * Lease of the locks this process takes (default 20 s, renewed every third of it while held):
   * after a crash, a process on another host may break such a lock once its lease ran out.
   */
  readonly lockLeaseMs?: number;
}

/** What this store instance remembers about one tree between calls. */
/**
 * Most trees whose settle markers this process keeps; the least recently used one is dropped
 * beyond it (its markers are read again from `.troupe/settled.jsonl` on its next settle).
 */
export const MAX_CACHED_TREES = 64;

/** Files read at once by a whole-tree read. */
const PARALLEL_READS = 8;

interface TreeState {
  readonly markers: SettledMarkers;
  swept: boolean;
  /**
   * Hashes this process computed for files the record has none for (after an append), with the
   * stat signature they belong to: used instead of rewriting `record.json` on a read (an fsync
   * per turn), and written with the next record.
   */
  readonly hashes: Map<string, FileEntry>;
}

/**
 * A {@link TreeStore} on disk: crash-safe atomic writes, revision checks under an in-process queue
 * plus a cross-process lock, multi-file changes that are all-or-nothing across crashes, external
 * edits absorbed as their own revision, idempotent settlements. Passes the kernel contract suite.
 */
export class FsTreeStore implements TreeStore {
  readonly #options: FsTreeStoreOptions;
  readonly #queue = new KeyedQueue();
  readonly #states = new Map<string, TreeState>();

  /** @param options - where trees live and which fs layer to use */
  constructor(options: FsTreeStoreOptions) {
    this.#options = options;
  }

  /**
   * Creates a tree at revision 1, atomically (built in a temp folder, then renamed).
   * @param treeId - the new tree's id (allowlisted, see `validateTreeId`)
   * @param files - relative path → text; `manifest.json` gets `revision: 1` stamped in
   * @returns the tree at revision 1
   * @throws {KernelStorageError} TREE_EXISTS, TREE_INVALID_ID, TREE_INVALID_PATH, TREE_INVALID_INPUT
   * (files not an object of strings), STORAGE_IO
   */
  async create(treeId: string, files: Readonly<Record<string, string>>): Promise<TreeSnapshot> {
    validateTreeId(treeId);
    const normalised = validateTreeFiles(files);
    if (normalised[MANIFEST_PATH] !== undefined) normalised[MANIFEST_PATH] = stampManifestRevision(normalised[MANIFEST_PATH], 1);
    const layout = this.#layout(treeId);
    await this.#queue.run(treeId, () => createTree(this.#options.fs, this.#options.dir, layout, normalised));
    return { treeId, revision: 1, files: Object.freeze({ ...normalised }) };
  }

  /**
   * The tree as on disk, after absorbing player edits as their own revision.
   * @param treeId - the tree
   * @returns every file of the tree and its revision
   * @throws {KernelStorageError} TREE_NOT_FOUND, TREE_INVALID_ID, TREE_CORRUPT, STORAGE_IO
   */
  async read(treeId: string): Promise<TreeSnapshot> {
    validateTreeId(treeId);
    return this.#locked(treeId, async (layout, record) => {
      const { files, record: filled } = await readAll(this.#options.fs, layout, record);
      if (filled !== record) {
        const { hashes } = this.#state(treeId);
        for (const [path, entry] of Object.entries(filled.files)) if (record.files[path]?.sha256 === null) hashes.set(path, entry);
      }
      return { treeId, revision: record.revision, files };
    });
  }

  /**
   * The revision {@link FsTreeStore.read} would return now, from the commit record and a stat of
   * every file (no file is read, no lock is taken): a snapshot of that revision is still the
   * tree. When a file's stat changed (a player edit), when a change is in progress or was
   * interrupted, the tree is brought up to date under its lock first, as a read would.
   * @param treeId - the tree
   * @returns the current revision
   * @throws {KernelStorageError} TREE_NOT_FOUND, TREE_INVALID_ID, TREE_CORRUPT, STORAGE_IO
   */
  async currentRevision(treeId: string): Promise<number> {
    validateTreeId(treeId);
    const layout = this.#layout(treeId);
    const fs = this.#options.fs;
    try {
      const dirStat = await fs.lstat(layout.dir);
      if (dirStat?.kind === 'directory' && !(await fs.lstat(layout.intentPath))) {
        // Lock-free: records are replaced atomically, and a commit finishing meanwhile changes a
        // stat signature (new inode or size), which sends us down the locked path below.
        const record = await readRecord(fs, layout);
        const signatures = await scanTree(fs, layout.dir);
        const entries = Object.entries(record.files);
        if (signatures.size === entries.length && entries.every(([path, entry]) => signatures.get(path) === entry.signature)) return record.revision;
      }
    } catch {
      // Anything unexpected (a damaged record, a folder vanishing mid-scan): the locked path reports it.
    }
    return this.#locked(treeId, async (_layout, record) => record.revision);
  }

  /**
   * Applies all writes as one revision, or none of them (also across a crash).
   * @param treeId - the tree
   * @param change - `baseRevision` (the revision the caller read) and path → text, or null to delete
   * @returns the tree at its new revision
   * @throws {RevisionConflictError} TREE_REVISION_CONFLICT when `baseRevision` is not the latest
   * @throws {KernelStorageError} TREE_NOT_FOUND, TREE_INVALID_ID, TREE_INVALID_PATH (bad path or a
   * symlink on it), TREE_INVALID_INPUT (malformed `change`), STORAGE_IO (disk failure or lost lock)
   */
  async commit(treeId: string, change: TreeCommit): Promise<TreeSnapshot> {
    validateTreeId(treeId);
    const { baseRevision, writes: checked } = validateTreeCommit(change);
    const writes = new Map<string, string | null>(checked);
    return this.#locked(treeId, async (layout, record, guard) => {
      if (baseRevision !== record.revision) throw new RevisionConflictError(treeId, baseRevision, record.revision);
      for (const path of writes.keys()) await assertWritablePath(this.#options.fs, layout.dir, path);
      const revision = record.revision + 1;
      const next = await this.#stampManifest(layout, record, writes, revision);
      const files: Record<string, string | null> = {};
      for (const [path, entry] of Object.entries(record.files)) files[path] = entry.sha256;
      for (const [path, content] of next) {
        if (content === null) delete files[path];
        else files[path] = sha256Hex(content);
      }
      const change = { revision, writes: next, appends: [], files, settled: null, signatures: signaturesOf(record) };
      const written = await applyChange(this.#options.fs, layout, this.#state(treeId).markers, change, guard);
      return { treeId, revision, files: (await readAll(this.#options.fs, layout, written)).files };
    });
  }

  /**
   * Appends once per marker, rebased on the latest revision; O(1) in the history's length.
   * @param treeId - the tree
   * @param settlement - the turn's `marker` and path → text to append (files are created if missing)
   * @returns `applied: false` when the marker was already settled with the same content
   * @throws {KernelStorageError} TREE_SETTLE_CONFLICT, TREE_INVALID_MARKER, TREE_INVALID_PATH,
   * TREE_INVALID_INPUT (malformed `settlement`), TREE_INVALID_ID, TREE_NOT_FOUND, STORAGE_IO
   */
  async settle(treeId: string, settlement: TreeSettlement): Promise<SettleResult> {
    const { marker, appends: checked } = validateTreeSettlement(settlement);
    validateTreeId(treeId);
    for (const [path, text] of Object.entries(checked)) {
      // The same bound recovery applies to an intent, so a settlement never writes one it would refuse.
      if (text.length > MAX_APPEND_CHARS) throw new KernelStorageError('TREE_INVALID_INPUT', `The settlement appends ${text.length} characters to "${path}"; at most ${MAX_APPEND_CHARS} are allowed`);
    }
    const appends = Object.entries(checked);
    const digest = settlementDigest(checked);
    return this.#locked(treeId, async (layout, record, guard) => {
      const markers = this.#state(treeId).markers;
      const previous = markers.digestOf(marker);
      if (previous !== undefined) {
        if (previous !== digest) {
          throw new KernelStorageError('TREE_SETTLE_CONFLICT', `Marker "${marker}" was already settled with different content`);
        }
        return { applied: false, revision: record.revision };
      }
      const fs = this.#options.fs;
      const revision = record.revision + 1;
      const blocks: { path: string; baseSize: number; text: string }[] = [];
      const files: Record<string, string | null> = {};
      for (const [path, entry] of Object.entries(record.files)) files[path] = entry.sha256;
      for (const [path, text] of appends) {
        await assertWritablePath(fs, layout.dir, path);
        const baseSize = (await fs.lstat(join(layout.dir, path)))?.size ?? 0;
        // Only the last byte decides the separator: the history itself is never reread.
        const lastByte = baseSize > 0 ? (await readFileBytes(fs, join(layout.dir, path), baseSize - 1, baseSize)).toString('latin1') : '';
        blocks.push({ path, baseSize, text: appendSettleBlock(lastByte, marker, text).slice(lastByte.length) });
        files[path] = null;
      }
      // A block appended to manifest.json makes it non-JSON, which stamping leaves as is anyway.
      const appendsToManifest = appends.some(([path]) => path === MANIFEST_PATH);
      const writes = appendsToManifest ? new Map<string, string | null>() : await this.#stampManifest(layout, record, new Map(), revision);
      for (const [path, content] of writes) if (content !== null) files[path] = sha256Hex(content);
      await applyChange(fs, layout, markers, { revision, writes, appends: blocks, files, settled: { marker, digest }, signatures: signaturesOf(record) }, guard);
      return { applied: true, revision };
    });
  }

  /**
   * Ids of every complete tree, sorted.
   * @returns tree ids (a tree still being created or deleted is not listed)
   * @throws {KernelStorageError} STORAGE_IO
   */
  async list(): Promise<readonly string[]> {
    return listTrees(this.#options.fs, this.#options.dir);
  }

  /**
   * Removes the tree (renamed aside first, so it disappears at once).
   * @param treeId - the tree
   * @returns false when it did not exist
   * @throws {KernelStorageError} TREE_INVALID_ID, TREE_CORRUPT, STORAGE_IO
   */
  async delete(treeId: string): Promise<boolean> {
    validateTreeId(treeId);
    const layout = this.#layout(treeId);
    return this.#queue.run(treeId, async () => {
      const removed = await deleteTree(this.#options.fs, this.#options.dir, layout);
      this.#states.delete(treeId);
      return removed;
    });
  }

  /** Adds manifest.json with the new revision stamped to `writes` when the tree has one. */
  async #stampManifest(layout: TreeLayout, record: TreeRecord, writes: Map<string, string | null>, revision: number): Promise<Map<string, string | null>> {
    const next = new Map(writes);
    const planned = writes.get(MANIFEST_PATH);
    if (planned === null) return next;
    let current = planned;
    if (current === undefined) {
      if (!record.files[MANIFEST_PATH]) return next;
      current = (await readFileBytes(this.#options.fs, join(layout.dir, MANIFEST_PATH))).toString('utf8');
    }
    const stamped = stampManifestRevision(current, revision);
    if (stamped !== current || planned !== undefined) next.set(MANIFEST_PATH, stamped);
    return next;
  }

  /**
   * Runs `work` in the tree's queue and lock, after recovering an interrupted change, sweeping
   * temps (first time per process) and absorbing external edits as their own revision.
   */
  async #locked<T>(treeId: string, work: (layout: TreeLayout, record: TreeRecord, guard: LockGuard) => Promise<T>): Promise<T> {
    const layout = this.#layout(treeId);
    const fs = this.#options.fs;
    return this.#queue.run(treeId, async () => {
      const dirStat = await fs.lstat(layout.dir);
      if (!dirStat) throw new KernelStorageError('TREE_NOT_FOUND', `There is no "${treeId}"`);
      if (dirStat.kind !== 'directory') throw new KernelStorageError('TREE_CORRUPT', `${layout.dir} is not a real folder (symlinks are refused)`);
      // The private folder too: a linked `.troupe` would carry the lock, temps and records outside.
      const metaStat = await fs.lstat(layout.metaDir);
      if (metaStat && metaStat.kind !== 'directory') {
        throw new KernelStorageError('TREE_CORRUPT', `${layout.metaDir} is not a real folder (symlinks are refused); replace it with a real folder or delete the workspace`);
      }
      const notFound = () => new KernelStorageError('TREE_NOT_FOUND', `There is no "${treeId}"`);
      try {
        return await withFileLock(fs, layout.lockPath, { onMissing: notFound, timeoutMs: this.#options.lockTimeoutMs, leaseMs: this.#options.lockLeaseMs }, async (lock: HeldLock) => {
          const guard: LockGuard = (what) => lock.assertHeld(what);
          const state = this.#state(treeId);
          await state.markers.refresh(fs, layout);
          const recovered = await recoverIntent(fs, layout, state.markers, guard);
          if (recovered || !state.swept) {
            await sweepTemps(fs, layout.dir);
            state.swept = true;
          }
          const record = await this.#absorbExternalEdits(layout, withKnownHashes(recovered ?? (await readRecord(fs, layout)), state.hashes), guard);
          return await work(layout, record, guard);
        });
      } catch (error) {
        throw asIoError(error, `Storage failure in "${treeId}"`);
      }
    });
  }

  /** Player edits (detected by stat signature, confirmed by hash) become their own revision. */
  async #absorbExternalEdits(layout: TreeLayout, record: TreeRecord, guard: LockGuard): Promise<TreeRecord> {
    const drift = await detectDrift(this.#options.fs, layout.dir, record);
    // Not edited: the same hashes, with the signatures just scanned (a touched file's is new).
    if (!drift.edited) return { ...record, files: drift.files };
    const revision = record.revision + 1;
    const files: Record<string, string | null> = {};
    for (const [path, entry] of Object.entries(drift.files)) files[path] = entry.sha256;
    const writes = await this.#stampManifest(layout, { ...record, files: drift.files }, new Map(), revision);
    for (const [path, content] of writes) if (content !== null) files[path] = sha256Hex(content);
    const state = this.#state(layout.treeId);
    return applyChange(this.#options.fs, layout, state.markers, { revision, writes, appends: [], files, settled: null, signatures: signaturesOf(drift) }, guard);
  }

  #layout(treeId: string): TreeLayout {
    return treeLayout(this.#options.dir, treeId);
  }

  #state(treeId: string): TreeState {
    let state = this.#states.get(treeId);
    if (state) {
      // Most recently used last (a Map keeps insertion order).
      this.#states.delete(treeId);
    } else {
      state = { markers: new SettledMarkers(), swept: false, hashes: new Map() };
      if (this.#states.size >= MAX_CACHED_TREES) this.#states.delete(this.#states.keys().next().value as string);
    }
    this.#states.set(treeId, state);
    return state;
  }
}

/** Path → stat signature of the files of a record (or drift) scanned under the lock. */
function signaturesOf(scanned: { readonly files: TreeRecord['files'] }): Record<string, string> {
  const signatures: Record<string, string> = {};
  for (const [path, entry] of Object.entries(scanned.files)) signatures[path] = entry.signature;
  return signatures;
}

/** The record with the hashes it lacks filled in from `known`, where the file's stat is still the one hashed. */
function withKnownHashes(record: TreeRecord, known: Map<string, FileEntry>): TreeRecord {
  if (known.size === 0) return record;
  let filled = record;
  for (const [path, entry] of Object.entries(record.files)) {
    const hashed = known.get(path);
    if (entry.sha256 !== null || !hashed) continue;
    // A hash of an earlier version of the file: forget it.
    if (hashed.signature !== entry.signature) {
      known.delete(path);
      continue;
    }
    if (filled === record) filled = { ...record, files: { ...record.files } };
    filled.files[path] = hashed;
  }
  return filled;
}

/** Reads every file of the tree (several at once), filling in hashes the record lacks (returns a new record then). */
async function readAll(fs: StorageFs, layout: TreeLayout, record: TreeRecord): Promise<{ files: Record<string, string>; record: TreeRecord }> {
  const entries = Object.entries(record.files);
  const contents = await mapLimited(entries, PARALLEL_READS, async ([path]) => (await readFileBytes(fs, join(layout.dir, path))).toString('utf8'));
  const files: Record<string, string> = {};
  let filled = record;
  entries.forEach(([path, entry], at) => {
    const content = contents[at] ?? '';
    files[path] = content;
    if (entry.sha256 === null) {
      if (filled === record) filled = { ...record, files: { ...record.files } };
      filled.files[path] = { ...entry, sha256: sha256Hex(content) };
    }
  });
  return { files, record: filled };
}
