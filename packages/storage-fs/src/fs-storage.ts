import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { SessionLog, TreeStore } from '@troupe/kernel';
import { FsSessionLog } from './session/fs-session-log.js';
import { nodeStorageFs, type StorageFs } from './fs/storage-fs.js';
import { FsTreeStore } from './tree/fs-tree-store.js';
import { TREES_FOLDER } from './tree/tree-layout.js';

/** Options for {@link fsStorage}. */
export interface FsStorageOptions {
  /** Storage root; default `$TROUPE_HOME`, else `~/.troupe`. */
  readonly root?: string;
  /** File-system layer (tests inject faults); default Node's `fs`. */
  readonly fs?: StorageFs;
  /** How long to wait for another process's lock before STORAGE_IO (default 30 s). */
  readonly lockTimeoutMs?: number;
  /**
   * Lease of the locks this process takes (default 20 s, renewed every third of it while held):
   * after a crash, a process on another host may break such a lock once its lease ran out.
   */
  readonly lockLeaseMs?: number;
  /**
   * How long a turn waits while another process runs a turn of the same session (default
   * 600 000), before STORAGE_IO naming that process.
   */
  readonly turnLockTimeoutMs?: number;
}

/** The two stores sharing one root. */
export interface FsStorage {
  /** Story workspaces under `<root>/story-workspaces/<id>/`. */
  readonly trees: FsTreeStore;
  /** Session logs under `<root>/sessions/<id>/`. */
  readonly sessions: FsSessionLog;
  /** The absolute root in use. */
  readonly root: string;
}

/**
 * The storage root: the option, else `TROUPE_HOME`, else `~/.troupe`.
 * @param root - explicit root, if any
 * @returns an absolute path
 */
export function resolveStorageRoot(root?: string): string {
  const env = process.env.TROUPE_HOME;
  return resolve(root ?? (env && env.length > 0 ? env : join(homedir(), '.troupe')));
}

/**
 * Opens file-system storage: a {@link TreeStore} and a {@link SessionLog} under one root.
 * Nothing is touched until the first call.
 * @param options - root, fs layer, lock timeout
 * @returns `{trees, sessions, root}`
 */
export function fsStorage(options: FsStorageOptions = {}): FsStorage {
  const root = resolveStorageRoot(options.root);
  const fs = options.fs ?? nodeStorageFs;
  return {
    root,
    trees: new FsTreeStore({ dir: join(root, TREES_FOLDER), fs, lockTimeoutMs: options.lockTimeoutMs, lockLeaseMs: options.lockLeaseMs }),
    sessions: new FsSessionLog({
      dir: join(root, 'sessions'),
      fs,
      lockTimeoutMs: options.lockTimeoutMs,
      lockLeaseMs: options.lockLeaseMs,
      turnLockTimeoutMs: options.turnLockTimeoutMs,
    }),
  };
}
