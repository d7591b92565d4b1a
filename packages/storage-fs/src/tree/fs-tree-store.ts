import { join } from 'node:path';
import { appendSettleBlock, MANIFEST_PATH, settlementDigest, stampManifestRevision, validateTreeCommit, validateTreeFiles, validateTreeId, validateTreeSettlement } from '@troupe/kernel/storage';
import { KernelStorageError, RevisionConflictError, type SettleResult, type TreeCommit, type TreeSettlement, type TreeSnapshot, type TreeStore } from '@troupe/kernel';
import { sha256Hex } from '@troupe/kernel/util';
import { asIoError } from '../fs/atomic-write.js';
import { type HeldLock, withFileLock } from '../fs/file-lock.js';
import { KeyedQueue } from '../fs/keyed-queue.js';
import { mapLimited } from '../fs/map-limited.js';
import { readFileBytes } from '../fs/read-file.js';
import { treeFileText } from './tree-text.js';
import type { EntryStat, StorageFs } from '../fs/storage-fs.js';
import { assertWritablePath } from './safe-paths.js';
import { createTree, deleteTree, listTrees } from './tree-lifecycle.js';
import { type TreeLayout, treeLayout } from './tree-layout.js';
import { statVouchesForContent } from './racy-stat.js';
import { TreeContentsCache } from './tree-contents-cache.js';
import { type FileEntry, MAX_APPEND_CHARS, readRecord, type TreeRecord } from './tree-record.js';
import { detectDrift, scanTree } from './tree-scan.js';
import { SettledMarkers } from './settled-markers.js';
import { sweepTemps } from '../fs/sweep-temps.js';
import { applyChange, type LockGuard, recoverIntent, type TreeChange } from './tree-transaction.js';
import { lstatQuick } from '../fs/stat-now.js';
import { quickLayer } from '../fs/quick-layer.js';

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
  /**
   * The commit record as last read, with the stat signature `record.json` had then (records are
   * only ever replaced by a rename, so an unchanged signature is an unchanged record unless it
   * changed within the clock's granularity, when `vouched` is false and it is read again).
   */
  record?: { readonly signature: string; readonly record: TreeRecord; readonly vouched: boolean };
}

/** What the scan under the lock found: when it started, and the files it read to confirm edits. */
interface LockedScan {
  /** `Date.now()` before the scan (see `statVouchesForContent`). */
  readonly startedAt: number;
  /** Contents read while confirming edits. */
  readonly read: ReadonlyMap<string, string>;
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
  readonly #contents = new TreeContentsCache();
  /**
   * Per tree, the tail of the last change applied under the lock held now (see `applyChange`):
   * run before the next change and before the lock is released, but after the caller has its
   * answer. Touched only in the tree's queue.
   */
  readonly #finishing = new Map<string, () => Promise<void>>();
  /** Per tree, a call already answered whose tail and lock release still run (see {@link FsTreeStore.idle}). */
  readonly #closing = new Map<string, Promise<void>>();

  /** @param options - where trees live and which fs layer to use */
  constructor(options: FsTreeStoreOptions) {
    this.#options = { ...options, fs: quickLayer(options.fs) };
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
    // Our own change still finishing would send this read down the locked path.
    await this.#closing.get(treeId);
    try {
      const quiet = await this.#readQuietly(treeId);
      if (quiet) return quiet;
    } catch {
      // Anything unexpected (a damaged record, a folder vanishing mid-scan): the locked path reports it.
    }
    return this.#locked(treeId, async (layout, record, _guard, scan) => {
      const files = await this.#contentsOf(layout, record, scan.read);
      this.#contents.remember(treeId, files, scan.startedAt);
      return { treeId, revision: record.revision, files: textsOf(files) };
    });
  }

  /**
   * The tree without its lock, when nothing changed since this process last held it: no change
   * in progress, the same commit record, and every file's stat signature the record's (a stat
   * per file and a listing per folder: an editor's save is seen). Files are then taken from
   * memory where their signature vouches for the content, and only the others are read. A
   * commit by another process meanwhile is caught afterwards (its intent appears before it
   * touches a file, its record after), and the locked path runs instead.
   * @returns the snapshot, or undefined when the locked path must run
   */
  async #readQuietly(treeId: string): Promise<TreeSnapshot | undefined> {
    const state = this.#states.get(treeId);
    // First use in this process: the locked path recovers and sweeps first.
    if (!state?.swept) return undefined;
    const layout = this.#layout(treeId);
    const fs = this.#options.fs;
    const startedAt = Date.now();
    const quiet = await this.#quietRecord(layout, state, startedAt);
    if (!quiet) return undefined;
    const record = withKnownHashes(quiet.record, state.hashes);
    if (!matchesRecord(await scanTree(fs, layout.dir), record)) return undefined;
    const files = await this.#contentsOf(layout, record, new Map());
    if ([...files.values()].some((file) => file.wasRead)) {
      const [intent, recordNow] = await Promise.all([lstatQuick(fs, layout.intentPath), lstatQuick(fs, layout.recordPath)]);
      if (intent || recordNow?.signature !== quiet.signature) return undefined;
    }
    this.#contents.remember(treeId, files, startedAt);
    this.#state(treeId);
    return { treeId, revision: record.revision, files: textsOf(files) };
  }

  /**
   * Every file of a record: from `read` (just read to confirm an edit), from memory where the
   * signature vouches for it, else read now (several at once). Hashes the record lacks (after an
   * append) are computed from the content and kept in memory, never written on a read.
   */
  async #contentsOf(layout: TreeLayout, record: TreeRecord, read: ReadonlyMap<string, string>): Promise<Map<string, ReadFile>> {
    const entries = Object.entries(record.files);
    const fs = this.#options.fs;
    const files = await mapLimited(entries, PARALLEL_READS, async ([path, entry]): Promise<ReadFile> => {
      const known = read.get(path) ?? this.#contents.get(layout.treeId, path, entry.signature);
      if (known !== undefined) return { signature: entry.signature, content: known, wasRead: false };
      const file = join(layout.dir, path);
      return { signature: entry.signature, content: treeFileText(await readFileBytes(fs, file), file), wasRead: true };
    });
    const { hashes } = this.#state(layout.treeId);
    const byPath = new Map<string, ReadFile>();
    entries.forEach(([path, entry], at) => {
      const file = files[at] as ReadFile;
      byPath.set(path, file);
      if (entry.sha256 === null) hashes.set(path, { sha256: sha256Hex(file.content), signature: entry.signature });
    });
    return byPath;
  }

  /**
   * The commit record, read without the lock, when no change is in progress: from memory while
   * `record.json` has the signature it was read with and that signature vouches for it.
   * @returns the record and `record.json`'s signature, or undefined when the locked path must run
   */
  async #quietRecord(layout: TreeLayout, state: TreeState | undefined, startedAt: number): Promise<{ record: TreeRecord; signature: string } | undefined> {
    const fs = this.#options.fs;
    // The private folder must be a real folder too, or the record would be read through a link.
    const [dirStat, metaStat, intentStat, recordStat] = await Promise.all([lstatQuick(fs, layout.dir), lstatQuick(fs, layout.metaDir), lstatQuick(fs, layout.intentPath), lstatQuick(fs, layout.recordPath)]);
    if (dirStat?.kind !== 'directory' || metaStat?.kind !== 'directory' || intentStat || recordStat?.kind !== 'file') return undefined;
    return { record: await this.#recordAt(layout, state, recordStat, startedAt), signature: recordStat.signature };
  }

  /** The record from memory when `stat` is the signature it was read with (and vouches for it), else read and remembered. */
  async #recordAt(layout: TreeLayout, state: TreeState | undefined, stat: EntryStat, startedAt: number): Promise<TreeRecord> {
    const known = state?.record;
    if (known?.vouched && known.signature === stat.signature) return known.record;
    const record = await readRecord(this.#options.fs, layout, stat);
    if (state) state.record = { signature: stat.signature, record, vouched: statVouchesForContent(stat.signature, startedAt) };
    return record;
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
    await this.#closing.get(treeId);
    try {
      // Lock-free: records are replaced atomically, and a commit finishing meanwhile changes a
      // stat signature (new inode or size), which sends us down the locked path below.
      const quiet = await this.#quietRecord(layout, this.#states.get(treeId), Date.now());
      if (quiet && matchesRecord(await scanTree(fs, layout.dir), quiet.record)) return quiet.record.revision;
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
    return this.#locked(treeId, async (layout, record, guard, scan) => {
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
      const written = await this.#apply(layout, change, guard);
      // The files just written are known; the others come from memory where their stat vouches for them.
      const known = new Map(scan.read);
      for (const [path, content] of next) if (content !== null) known.set(path, content);
      const contents = await this.#contentsOf(layout, written, known);
      this.#contents.remember(treeId, contents, scan.startedAt);
      return { treeId, revision, files: textsOf(contents) };
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
        const stat = await lstatQuick(fs, join(layout.dir, path));
        const baseSize = stat?.size ?? 0;
        // Only the last character decides the separator: the history itself is never reread
        // (its last byte is read, or taken from the content in memory when its stat vouches for it).
        const cached = stat ? this.#contents.get(treeId, path, stat.signature) : undefined;
        const lastByte = baseSize === 0 ? '' : cached !== undefined ? cached.slice(-1) : (await readFileBytes(fs, join(layout.dir, path), baseSize - 1, baseSize)).toString('latin1');
        blocks.push({ path, baseSize, text: appendSettleBlock(lastByte, marker, text).slice(lastByte.length) });
        files[path] = null;
      }
      // A block appended to manifest.json makes it non-JSON, which stamping leaves as is anyway.
      const appendsToManifest = appends.some(([path]) => path === MANIFEST_PATH);
      const writes = appendsToManifest ? new Map<string, string | null>() : await this.#stampManifest(layout, record, new Map(), revision);
      for (const [path, content] of writes) if (content !== null) files[path] = sha256Hex(content);
      await this.#apply(layout, { revision, writes, appends: blocks, files, settled: { marker, digest }, signatures: signaturesOf(record) }, guard);
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
      this.#contents.forget(treeId);
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
      const path = join(layout.dir, MANIFEST_PATH);
      // Read under the lock right before it is replaced (a player's save is kept), or taken from
      // memory when a fresh stat still vouches for the content there.
      const candidate = this.#contents.has(layout.treeId, MANIFEST_PATH) ? await lstatQuick(this.#options.fs, path) : undefined;
      current = (candidate?.kind === 'file' ? this.#contents.get(layout.treeId, MANIFEST_PATH, candidate.signature) : undefined) ?? treeFileText(await readFileBytes(this.#options.fs, path), path);
    }
    const stamped = stampManifestRevision(current, revision);
    if (stamped !== current || planned !== undefined) next.set(MANIFEST_PATH, stamped);
    return next;
  }

  /**
   * Runs `work` in the tree's queue and lock, after recovering an interrupted change, sweeping
   * temps (first time per process) and absorbing external edits as their own revision.
   */
  async #locked<T>(treeId: string, work: (layout: TreeLayout, record: TreeRecord, guard: LockGuard, scan: LockedScan) => Promise<T>): Promise<T> {
    const layout = this.#layout(treeId);
    const fs = this.#options.fs;
    // Resolved as soon as `work` is done and its change durable; the lock is released after the
    // change's tail (a folder sync and the intent's removal), which the caller need not wait for.
    let answer: (value: T) => void = () => undefined;
    let closed: (() => void) | undefined;
    const answered = new Promise<T>((resolve) => {
      answer = resolve;
    });
    const whole = this.#queue.run(treeId, async () => {
      const dirStat = await lstatQuick(fs, layout.dir);
      if (!dirStat) throw new KernelStorageError('TREE_NOT_FOUND', `There is no "${treeId}"`);
      if (dirStat.kind !== 'directory') throw new KernelStorageError('TREE_CORRUPT', `${layout.dir} is not a real folder (symlinks are refused)`);
      // The private folder too: a linked `.troupe` would carry the lock, temps and records outside.
      const metaStat = await lstatQuick(fs, layout.metaDir);
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
          const startedAt = Date.now();
          let record: TreeRecord;
          if (recovered) {
            state.record = undefined;
            record = recovered;
          } else {
            const stat = await lstatQuick(fs, layout.recordPath);
            record = stat?.kind === 'file' ? await this.#recordAt(layout, state, stat, startedAt) : await readRecord(fs, layout);
          }
          let value: T;
          try {
            const absorbed = await this.#absorbExternalEdits(layout, withKnownHashes(record, state.hashes), guard);
            value = await work(layout, absorbed.record, guard, { startedAt, read: absorbed.read });
          } catch (error) {
            await this.#finishPending(treeId);
            throw error;
          }
          if (!this.#finishing.has(treeId)) return value;
          answer(value);
          // Answered: until the tail and the lock's release are done, this store's own reads wait.
          const closing = new Promise<void>((resolve) => {
            closed = () => {
              if (this.#closing.get(treeId) === closing) this.#closing.delete(treeId);
              resolve();
            };
          });
          this.#closing.set(treeId, closing);
          await this.#finishPending(treeId);
          return value;
        });
      } catch (error) {
        throw asIoError(error, `Storage failure in "${treeId}"`);
      } finally {
        // After withFileLock released the lock.
        closed?.();
      }
    });
    return Promise.race([answered, whole]);
  }

  /**
   * Resolves once every call this store has answered has also finished its tail: a change is
   * durable when its call resolves (its intent replays it after a crash), and the folder sync of
   * its record, the removal of its intent and the release of the tree's lock follow right after,
   * without the caller waiting. Reads by this store wait for them by themselves; call this before
   * looking at the folder from outside or exiting with `process.exit`.
   * @param treeId - one tree, or every tree when omitted
   */
  async idle(treeId?: string): Promise<void> {
    if (treeId !== undefined) return this.#closing.get(treeId);
    await Promise.all(this.#closing.values());
  }

  /**
   * Runs the tail of the last change applied under the held lock, if any. A failed tail leaves
   * the intent in place, which the next caller finds finished (the record has its revision) and
   * removes, or replays when the record's new name did not reach the disk: nothing to report.
   */
  async #finishPending(treeId: string): Promise<void> {
    const finish = this.#finishing.get(treeId);
    if (!finish) return;
    this.#finishing.delete(treeId);
    await finish().catch(() => undefined);
  }

  /** Player edits (detected by stat signature, confirmed by hash) become their own revision. */
  async #absorbExternalEdits(layout: TreeLayout, record: TreeRecord, guard: LockGuard): Promise<{ record: TreeRecord; read: ReadonlyMap<string, string> }> {
    const drift = await detectDrift(this.#options.fs, layout.dir, record);
    // Not edited: the same hashes, with the signatures just scanned (a touched file's is new).
    if (!drift.edited) return { record: { ...record, files: drift.files }, read: drift.read };
    const revision = record.revision + 1;
    const files: Record<string, string | null> = {};
    for (const [path, entry] of Object.entries(drift.files)) files[path] = entry.sha256;
    const writes = await this.#stampManifest(layout, { ...record, files: drift.files }, new Map(), revision);
    for (const [path, content] of writes) if (content !== null) files[path] = sha256Hex(content);
    const written = await this.#apply(layout, { revision, writes, appends: [], files, settled: null, signatures: signaturesOf(drift) }, guard);
    // The manifest was just restamped: only what the drift check read is still the files' content.
    const read = new Map(drift.read);
    for (const path of writes.keys()) read.delete(path);
    return { record: written, read };
  }

  /**
   * Applies a change (see `applyChange`); `record.json` is rewritten, so its remembered copy is
   * dropped. The change's tail is left for {@link FsTreeStore.#finishPending}.
   */
  async #apply(layout: TreeLayout, change: TreeChange, guard: LockGuard): Promise<TreeRecord> {
    // The previous change's intent is removed before this one writes its own.
    await this.#finishPending(layout.treeId);
    const state = this.#state(layout.treeId);
    state.record = undefined;
    const applied = await applyChange(this.#options.fs, layout, state.markers, change, guard);
    this.#finishing.set(layout.treeId, applied.finish);
    return applied.record;
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

/** A file's content with the signature it belongs to, and whether it was just read from disk. */
interface ReadFile {
  readonly signature: string;
  readonly content: string;
  readonly wasRead: boolean;
}

/** Path → text of the files read. */
function textsOf(files: ReadonlyMap<string, ReadFile>): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [path, file] of files) texts[path] = file.content;
  return texts;
}

/** Whether a scan found exactly the record's files, each with its recorded signature (no edit, no change in progress). */
function matchesRecord(scanned: ReadonlyMap<string, string>, record: TreeRecord): boolean {
  const entries = Object.entries(record.files);
  return scanned.size === entries.length && entries.every(([path, entry]) => scanned.get(path) === entry.signature);
}
