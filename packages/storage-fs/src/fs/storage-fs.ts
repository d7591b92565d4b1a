import * as nodeFs from 'node:fs';
import { promisify } from 'node:util';

/** What `lstat` reports about one directory entry (never follows symlinks). */
export interface EntryStat {
  /** What the entry is; `other` covers sockets, devices and FIFOs. */
  readonly kind: 'file' | 'directory' | 'symlink' | 'other';
  /** Size in bytes. */
  readonly size: number;
  /** Change-detection signature: inode, size, mtime and ctime in nanoseconds. */
  readonly signature: string;
  /** Last modification time in milliseconds since the epoch (lock leases are judged by it). */
  readonly mtimeMs: number;
}

/**
 * The few file-system calls the store makes. Everything goes through this interface so tests can
 * inject short writes, ENOSPC, crashes after N operations, and record the operation trace.
 * Errors must be Node-style (`code` like `ENOENT`, `EEXIST`).
 */
export interface StorageFs {
  /**
   * `open(2)`.
   * @param path - the file
   * @param flags - `fs.constants` bits (see `CREATE_EXCLUSIVE`, `READ_NOFOLLOW`, …)
   * @param mode - permissions for a created file
   * @returns a descriptor
   */
  open(path: string, flags: number, mode?: number): Promise<number>;
  /**
   * `pwrite(2)` (or `write(2)` when `position` is null); may write fewer bytes than asked.
   * @param fd - open descriptor
   * @param buffer - source bytes
   * @param offset - first byte of `buffer` to write
   * @param length - how many bytes to write
   * @param position - file offset, or null for the current position
   * @returns bytes written
   */
  write(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<number>;
  /**
   * `pread(2)`; may read fewer bytes than asked.
   * @param fd - open descriptor
   * @param buffer - destination
   * @param offset - first byte of `buffer` to fill
   * @param length - how many bytes to read at most
   * @param position - file offset
   * @returns bytes read (0 at the end of the file)
   */
  read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  /**
   * Size of an open file (`fstat(2)`).
   * @param fd - open descriptor
   * @returns size in bytes
   */
  fsize(fd: number): Promise<number>;
  /**
   * `fsync(2)`: the file's data and size reach the disk before this resolves.
   * @param fd - open descriptor
   */
  fsync(fd: number): Promise<void>;
  /**
   * `ftruncate(2)`: cuts (or extends with zeros) an open file.
   * @param fd - open descriptor
   * @param length - the new size
   */
  ftruncate(fd: number, length: number): Promise<void>;
  /**
   * `futimes(2)`: sets an open file's access and modification times (renews a lock's lease on
   * the holder's own inode, never on whatever file now has the lock's name).
   * @param fd - open descriptor
   * @param timeMs - the new time, milliseconds since the epoch
   */
  futimes(fd: number, timeMs: number): Promise<void>;
  /**
   * `close(2)`.
   * @param fd - open descriptor
   */
  close(fd: number): Promise<void>;
  /**
   * `rename(2)`: atomically replaces `to` (same file system).
   * @param from - existing path
   * @param to - new path
   */
  rename(from: string, to: string): Promise<void>;
  /**
   * `link(2)`: a hard link; EEXIST when `to` exists (an atomic, exclusive publish).
   * @param from - existing file
   * @param to - the new name
   */
  link(from: string, to: string): Promise<void>;
  /**
   * `unlink(2)`: removes a file name (ENOENT when missing).
   * @param path - the file
   */
  unlink(path: string): Promise<void>;
  /**
   * Creates one directory (not recursive); EEXIST when present.
   * @param path - the directory
   */
  mkdir(path: string): Promise<void>;
  /**
   * Removes a directory tree (no-op when missing). Never follows symlinks.
   * @param path - the directory
   */
  removeTree(path: string): Promise<void>;
  /**
   * Names in a directory.
   * @param path - the directory
   * @returns entry names (no `.` / `..`)
   */
  readdir(path: string): Promise<string[]>;
  /**
   * `lstat(2)` (never follows a symlink).
   * @param path - any path
   * @returns what is there, or `undefined` when the path does not exist
   */
  lstat(path: string): Promise<EntryStat | undefined>;
  /**
   * Flushes a directory's entries, so renames and creations in it survive a power cut (best
   * effort: some platforms cannot).
   * @param path - the directory
   */
  fsyncDir(path: string): Promise<void>;
  /**
   * Optional: `lstat` answered on the calling thread — a few µs on a local disk, where a trip
   * through libuv's thread pool costs tens — for the stat checks that run on every read (a
   * workspace's files, a log's size). Without it (e.g. layers injecting faults) `lstat` is used.
   * @param path - any path
   * @returns what is there, or `undefined` when the path does not exist
   */
  lstatNow?(path: string): EntryStat | undefined;
  /**
   * Optional: the entries of a directory with their kinds, on the calling thread (see
   * {@link StorageFs.lstatNow}); without it `readdir` and an `lstat` per entry are used.
   * @param path - the directory
   * @returns entry names (no `.` / `..`) and what each is (never following a symlink)
   */
  readdirNow?(path: string): DirEntry[];
  /**
   * Optional: reads bytes `[start, end)` of a small file on the calling thread, opened without
   * following a symlink (ELOOP on one) — a commit record, a log line, a workspace file — instead
   * of four thread-pool round trips (open, size, read, close).
   * @param path - the file
   * @param start - first byte
   * @param end - end offset, or undefined for the file's size
   * @returns the bytes, or undefined when the range is too big to read without the thread pool
   * (the caller reads it asynchronously then)
   */
  readNow?(path: string, start: number, end: number | undefined): Buffer | undefined;
}

/** The most bytes {@link nodeStorageFs}'s `readNow` reads on the calling thread (≈ 1 ms from the page cache). */
export const MAX_SYNC_READ_BYTES = 4 * 1024 * 1024;

/** One directory entry as {@link StorageFs.readdirNow} lists it. */
export interface DirEntry {
  readonly name: string;
  readonly kind: EntryStat['kind'];
}

const open = promisify(nodeFs.open);
const write = (fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<number> =>
  new Promise((resolve, reject) => nodeFs.write(fd, buffer, offset, length, position, (error, count) => (error ? reject(error) : resolve(count))));
const read = (fd: number, buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> =>
  new Promise((resolve, reject) => nodeFs.read(fd, buffer, offset, length, position, (error, count) => (error ? reject(error) : resolve(count))));
const fstat = promisify(nodeFs.fstat);
const fsync = promisify(nodeFs.fsync);
const ftruncate = promisify(nodeFs.ftruncate);
const close = promisify(nodeFs.close);
const futimes = promisify(nodeFs.futimes);

function kindOf(stat: nodeFs.BigIntStats | nodeFs.Dirent): EntryStat['kind'] {
  if (stat.isSymbolicLink()) return 'symlink';
  if (stat.isFile()) return 'file';
  if (stat.isDirectory()) return 'directory';
  return 'other';
}

function entryStat(stat: nodeFs.BigIntStats): EntryStat {
  return { kind: kindOf(stat), size: Number(stat.size), signature: `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`, mtimeMs: Number(stat.mtimeMs) };
}

function lstatSync(path: string): EntryStat | undefined {
  try {
    return entryStat(nodeFs.lstatSync(path, { bigint: true }));
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

// The synchronous form of a call, keyed by the very function a layer has for that call: a layer
// that replaces a call (a test injecting a short write, a crash, a race) replaces its synchronous
// form with it, so nothing ever bypasses the replacement. See `quickLayer`.
// biome-ignore lint/complexity/noBannedTypes: keyed by any function value
const syncForms = new WeakMap<Function, Function>();

/**
 * Registers `sync` as the synchronous form of the asynchronous `call` (same arguments, same
 * result, same errors thrown instead of rejected).
 * @param call - the asynchronous call a layer exposes
 * @param sync - the same call answered on the calling thread
 * @returns `call` itself
 */
export function withSyncForm<A extends unknown[], R>(call: (...args: A) => Promise<R>, sync: (...args: A) => R): (...args: A) => Promise<R> {
  syncForms.set(call, sync);
  return call;
}

/**
 * The synchronous form registered for a layer's call, if any (see {@link withSyncForm}).
 * @param call - the layer's call
 * @returns its synchronous form, or undefined
 */
export function syncFormOf<A extends unknown[], R>(call: ((...args: A) => Promise<R>) | undefined): ((...args: A) => R) | undefined {
  return call ? (syncForms.get(call) as ((...args: A) => R) | undefined) : undefined;
}

/** The real file system (Node's `fs`). */
export const nodeStorageFs: StorageFs = {
  open: withSyncForm(
    (path: string, flags: number, mode?: number) => open(path, flags, mode),
    (path: string, flags: number, mode?: number) => nodeFs.openSync(path, flags, mode),
  ),
  write: withSyncForm(
    (fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null) => write(fd, buffer, offset, length, position),
    (fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null) => nodeFs.writeSync(fd, buffer, offset, length, position),
  ),
  read: (fd, buffer, offset, length, position) => read(fd, buffer, offset, length, position),
  fsize: withSyncForm(
    async (fd: number) => (await fstat(fd)).size,
    (fd: number) => nodeFs.fstatSync(fd).size,
  ),
  fsync: (fd) => fsync(fd),
  ftruncate: withSyncForm(
    (fd: number, length: number) => ftruncate(fd, length),
    (fd: number, length: number) => nodeFs.ftruncateSync(fd, length),
  ),
  futimes: (fd, timeMs) => futimes(fd, timeMs / 1000, timeMs / 1000),
  close: withSyncForm(
    (fd: number) => close(fd),
    (fd: number) => nodeFs.closeSync(fd),
  ),
  rename: withSyncForm(
    (from: string, to: string) => nodeFs.promises.rename(from, to),
    (from: string, to: string) => nodeFs.renameSync(from, to),
  ),
  link: withSyncForm(
    (from: string, to: string) => nodeFs.promises.link(from, to),
    (from: string, to: string) => nodeFs.linkSync(from, to),
  ),
  unlink: withSyncForm(
    (path: string) => nodeFs.promises.unlink(path),
    (path: string) => nodeFs.unlinkSync(path),
  ),
  mkdir: withSyncForm(
    async (path: string) => {
      await nodeFs.promises.mkdir(path);
    },
    (path: string) => {
      nodeFs.mkdirSync(path);
    },
  ),
  removeTree: (path) => nodeFs.promises.rm(path, { recursive: true, force: true }),
  readdir: (path) => nodeFs.promises.readdir(path),
  lstat: withSyncForm(
    async (path: string) => {
      try {
        return entryStat(await nodeFs.promises.lstat(path, { bigint: true }));
      } catch (error) {
        if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return undefined;
        throw error;
      }
    },
    (path: string) => lstatSync(path),
  ),
  lstatNow: (path) => lstatSync(path),
  readdirNow: (path) => nodeFs.readdirSync(path, { withFileTypes: true }).map((entry) => ({ name: entry.name, kind: kindOf(entry) })),
  readNow: (path, start, end) => {
    const fd = nodeFs.openSync(path, READ_NOFOLLOW);
    try {
      const stop = end ?? nodeFs.fstatSync(fd).size;
      const length = Math.max(0, stop - start);
      if (length > MAX_SYNC_READ_BYTES) return undefined;
      const buffer = Buffer.alloc(length);
      let offset = 0;
      while (offset < length) {
        const count = nodeFs.readSync(fd, buffer, offset, length - offset, start + offset);
        if (count === 0) return buffer.subarray(0, offset);
        offset += count;
      }
      return buffer;
    } finally {
      nodeFs.closeSync(fd);
    }
  },
  fsyncDir: async (path) => {
    // Windows cannot open directories for fsync; some network/FUSE file systems answer EINVAL.
    if (process.platform === 'win32') return;
    // Opening and closing a directory take a few µs: only the sync itself goes to the thread pool.
    let fd: number | undefined;
    try {
      fd = nodeFs.openSync(path, nodeFs.constants.O_RDONLY);
      await fsync(fd);
    } catch (error) {
      if (!['EINVAL', 'ENOTSUP', 'EPERM', 'EISDIR'].includes(errorCode(error) ?? '')) throw error;
    } finally {
      if (fd !== undefined) nodeFs.closeSync(fd);
    }
  },
};

/**
 * The Node error code of a thrown value, if any.
 * @param error - anything thrown
 * @returns e.g. `ENOENT`, or undefined
 */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** `O_NOFOLLOW` where the platform has it (0 on Windows, which has no such flag). */
export const O_NOFOLLOW = nodeFs.constants.O_NOFOLLOW ?? 0;
/** Flags for creating a file that must not exist yet and must not be a symlink. */
export const CREATE_EXCLUSIVE = nodeFs.constants.O_WRONLY | nodeFs.constants.O_CREAT | nodeFs.constants.O_EXCL | O_NOFOLLOW;
/** Flags for reading a file without following a symlink. */
export const READ_NOFOLLOW = nodeFs.constants.O_RDONLY | O_NOFOLLOW;
/** Flags for writing into an existing or new file without following a symlink. */
export const WRITE_NOFOLLOW = nodeFs.constants.O_WRONLY | nodeFs.constants.O_CREAT | O_NOFOLLOW;
/** Flags for appending to a file without following a symlink. */
export const APPEND_NOFOLLOW = WRITE_NOFOLLOW | nodeFs.constants.O_APPEND;
