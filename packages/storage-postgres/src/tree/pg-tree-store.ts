import {
  KernelStorageError,
  RevisionConflictError,
  type SettleResult,
  type TreeCommit,
  type TreeSettlement,
  type TreeSnapshot,
  type TreeStore,
} from '@troupe/kernel';
import {
  appendSettleBlock,
  MANIFEST_PATH,
  settlementDigest,
  stampManifestRevision,
  validateTreeCommit,
  validateTreeFiles,
  validateTreeId,
  validateTreeSettlement,
} from '@troupe/kernel/storage';
import type { Database, Queryable } from '../db/database.js';
import { notifyTreeSql } from '../live/channels.js';
import { filesOf, toBytes } from './file-rows.js';
import { APPEND_BLOCKS, FOLD_AFTER_BLOCKS, FOLD_BLOCKS, READ_FILE, READ_FILES, READ_TREE, WRITE_FILES } from './file-sql.js';

/**
 * {@link TreeStore} on PostgreSQL. A tree is one `troupe_trees` row whose `revision` is the row
 * version, plus one `troupe_tree_files` row per file. Each commit is one transaction that bumps
 * the revision only if it still equals the caller's base (`UPDATE … WHERE revision = $base`), so
 * of concurrent commits on one base exactly one wins, and a stale or failed commit writes nothing.
 * Settlements lock the tree row, record the marker under a unique constraint and append in SQL.
 */
export class PgTreeStore implements TreeStore {
  readonly #db: Database;

  /** @param db - the storage's database (see `postgresStorage()`) */
  constructor(db: Database) {
    this.#db = db;
  }

  async create(treeId: string, files: Readonly<Record<string, string>>): Promise<TreeSnapshot> {
    validateTreeId(treeId);
    const normalised = validateTreeFiles(files);
    return this.#db.transaction(`create "${treeId}"`, async (tx) => {
      const created = await tx.query('INSERT INTO troupe_trees (tree_id, revision) VALUES ($1, 1) ON CONFLICT (tree_id) DO NOTHING RETURNING revision', [treeId]);
      if (created.length === 0) throw new KernelStorageError('TREE_EXISTS', `"${treeId}" already exists`);
      const stamped = stampWrites(normalised, 1);
      await writeFiles(tx, treeId, stamped, 1);
      await tx.query(notifyTreeSql('$1', '$2'), [treeId, 1]);
      return snapshot(treeId, 1, stamped);
    });
  }

  async read(treeId: string): Promise<TreeSnapshot> {
    validateTreeId(treeId);
    // One statement sees one committed state: the revision and every file of it, never a mix.
    const rows = await this.#db.query(`read "${treeId}"`, READ_TREE, [treeId]);
    const first = rows[0];
    if (!first) throw notFound(treeId);
    return snapshot(treeId, Number(first.revision), filesOf(rows));
  }

  /**
   * The tree's revision from its row alone (no file is read): a caller holding a snapshot of
   * this revision may keep using it.
   * @param treeId - the tree
   * @returns the current revision
   * @throws {KernelStorageError} TREE_NOT_FOUND, TREE_INVALID_ID, STORAGE_IO
   */
  async currentRevision(treeId: string): Promise<number> {
    validateTreeId(treeId);
    const rows = await this.#db.query(`revision of "${treeId}"`, 'SELECT revision FROM troupe_trees WHERE tree_id = $1', [treeId]);
    if (!rows[0]) throw notFound(treeId);
    return Number(rows[0].revision);
  }

  async commit(treeId: string, change: TreeCommit): Promise<TreeSnapshot> {
    validateTreeId(treeId);
    // Input first, then existence: the same order as every other store.
    const { baseRevision, writes } = validateTreeCommit(change);
    // Two spellings of one path (NFC) collapse to one write; the later one wins, as in memory.
    const latest = new Map(writes);
    return this.#db.transaction(`commit "${treeId}"`, async (tx) => {
      const bumped = await tx.query('UPDATE troupe_trees SET revision = revision + 1, updated_at = now() WHERE tree_id = $1 AND revision = $2 RETURNING revision', [treeId, baseRevision]);
      if (!bumped[0]) {
        const current = await tx.query('SELECT revision FROM troupe_trees WHERE tree_id = $1', [treeId]);
        if (!current[0]) throw notFound(treeId);
        throw new RevisionConflictError(treeId, baseRevision, Number(current[0].revision));
      }
      const revision = Number(bumped[0].revision);
      const deletes = [...latest].filter(([, content]) => content === null).map(([path]) => path);
      const upserts = Object.fromEntries([...latest].filter((entry): entry is [string, string] => entry[1] !== null));
      if (deletes.length > 0) await tx.query('DELETE FROM troupe_tree_files WHERE tree_id = $1 AND path = ANY($2::text[])', [treeId, deletes]);
      await writeFiles(tx, treeId, stampWrites(upserts, revision), revision);
      if (!(MANIFEST_PATH in upserts)) await restampManifest(tx, treeId, revision);
      const files = filesOf(await tx.query(READ_FILES, [treeId]));
      await tx.query(notifyTreeSql('$1', '$2'), [treeId, revision]);
      return snapshot(treeId, revision, files);
    });
  }

  async settle(treeId: string, settlement: TreeSettlement): Promise<SettleResult> {
    validateTreeId(treeId);
    const { marker, appends } = validateTreeSettlement(settlement);
    const digest = settlementDigest(appends);
    return this.#db.transaction(`settle "${treeId}" (${marker})`, async (tx) => {
      // The row lock orders settlements and commits of this tree: rebased on the latest revision.
      const locked = await tx.query('SELECT revision FROM troupe_trees WHERE tree_id = $1 FOR UPDATE', [treeId]);
      if (!locked[0]) throw notFound(treeId);
      const current = Number(locked[0].revision);
      const revision = current + 1;
      const recorded = await tx.query(
        'INSERT INTO troupe_tree_settlements (tree_id, marker, digest, revision) VALUES ($1, $2, $3, $4) ON CONFLICT (tree_id, marker) DO NOTHING RETURNING marker',
        [treeId, marker, digest, revision],
      );
      if (recorded.length === 0) {
        const previous = await tx.query('SELECT digest FROM troupe_tree_settlements WHERE tree_id = $1 AND marker = $2', [treeId, marker]);
        if (previous[0]?.digest !== digest) throw new KernelStorageError('TREE_SETTLE_CONFLICT', `Marker "${marker}" was already settled with different content`);
        return { applied: false, revision: current };
      }
      await tx.query('UPDATE troupe_trees SET revision = $2, updated_at = now() WHERE tree_id = $1', [treeId, revision]);
      const paths = Object.keys(appends);
      if (paths.length > 0) {
        // Each block is a row (no rewrite of the file's value): O(1) in the history's length.
        await tx.query(APPEND_BLOCKS, [treeId, paths, paths.map((path) => toBytes(appendSettleBlock('', marker, appends[path] ?? ''))), revision]);
        await tx.query(FOLD_BLOCKS, [treeId, paths, FOLD_AFTER_BLOCKS]);
      }
      await restampManifest(tx, treeId, revision);
      await tx.query(notifyTreeSql('$1', '$2'), [treeId, revision]);
      return { applied: true, revision };
    });
  }

  async list(): Promise<readonly string[]> {
    const rows = await this.#db.query('list trees', 'SELECT tree_id FROM troupe_trees');
    return rows.map((row) => String(row.tree_id)).sort();
  }

  async delete(treeId: string): Promise<boolean> {
    validateTreeId(treeId);
    const rows = await this.#db.query(`delete "${treeId}"`, 'DELETE FROM troupe_trees WHERE tree_id = $1 RETURNING tree_id', [treeId]);
    return rows.length > 0;
  }
}

/** The writes with the store-owned manifest revision stamped in. */
function stampWrites(files: Readonly<Record<string, string>>, revision: number): Record<string, string> {
  const manifest = files[MANIFEST_PATH];
  return manifest === undefined ? { ...files } : { ...files, [MANIFEST_PATH]: stampManifestRevision(manifest, revision) };
}

async function writeFiles(tx: Queryable, treeId: string, files: Readonly<Record<string, string>>, revision: number): Promise<void> {
  const paths = Object.keys(files);
  if (paths.length === 0) return;
  const texts = paths.map((path) => files[path] ?? '');
  await tx.query(WRITE_FILES, [treeId, paths, texts.map(toBytes), revision, texts.map((text) => text.length === 0 || text.endsWith('\n'))]);
}

/** Keeps an untouched manifest's `revision` in step with the tree's. */
async function restampManifest(tx: Queryable, treeId: string, revision: number): Promise<void> {
  const rows = await tx.query(READ_FILE, [treeId, MANIFEST_PATH]);
  const content = rows[0]?.content;
  if (!Buffer.isBuffer(content)) return;
  const text = content.toString('utf8');
  const stamped = stampManifestRevision(text, revision);
  if (stamped !== text) await writeFiles(tx, treeId, { [MANIFEST_PATH]: stamped }, revision);
}

function snapshot(treeId: string, revision: number, files: Record<string, string>): TreeSnapshot {
  return { treeId, revision, files: Object.freeze({ ...files }) };
}

function notFound(treeId: string): KernelStorageError {
  return new KernelStorageError('TREE_NOT_FOUND', `There is no "${treeId}"`);
}
