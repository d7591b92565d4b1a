import { nodeStorageFs, type StorageFs, syncFormOf, withSyncForm } from './storage-fs.js';

/** How many calls of each kind a {@link countingStorageFs} saw since it was made or reset. */
export interface StorageFsCounts {
  /** Every call, of any kind. */
  readonly total: number;
  /** `fsync` of a file (data reaches the disk). */
  readonly fsync: number;
  /** `fsyncDir` (directory entries reach the disk). */
  readonly fsyncDir: number;
  /**
   * Locks taken: storage-fs publishes every lock file with one successful `link(2)` (see
   * `withFileLock`), and links nothing else except when putting a lock it moved aside back.
   */
  readonly locks: number;
  /** Bytes returned by `read` from files whose path ends with the `readSuffix` given (all files by default). */
  readonly bytesRead: number;
  /**
   * Of {@link StorageFsCounts.total}, the operations answered on the calling thread (the layer's
   * `…Now` calls and the synchronous forms the stores use, see `quickLayer`): the others each
   * cost a round trip through libuv's thread pool.
   */
  readonly synchronous: number;
  /** Calls per operation name (`open`, `lstat`, `readdir`, …). */
  readonly byOperation: Readonly<Record<string, number>>;
  /** Every path opened (by `open`, or by a small read on the calling thread), in call order. */
  readonly opened: readonly string[];
}

/** A counting fs layer and its counters. */
export interface CountingStorageFs {
  /** The layer to hand to `fsStorage`, `FsTreeStore` or `FsSessionLog`. */
  readonly fs: StorageFs;
  /** @returns the counts since the layer was made or last reset */
  counts(): StorageFsCounts;
  /** Sets every counter back to zero. */
  reset(): void;
}

/**
 * Wraps a {@link StorageFs} so that every call is counted: how many fsyncs, directory syncs and
 * lock acquisitions (and bytes read) some workload costs, for tests and benchmarks that check
 * the number of round trips rather than the time they take.
 * @param inner - the layer doing the work (default Node's `fs`)
 * @param readSuffix - count read bytes only for files whose path ends with this (default every file)
 * @returns the counting layer and its counters
 */
export function countingStorageFs(inner: StorageFs = nodeStorageFs, readSuffix = ''): CountingStorageFs {
  let calls = new Map<string, number>();
  let bytesRead = 0;
  let opened: string[] = [];
  const countedFds = new Set<number>();
  let synchronous = 0;
  const tally = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
  /** A call answered on the calling thread (no thread-pool round trip). */
  const tallyNow = (name: string) => {
    tally(name);
    synchronous += 1;
  };
  const fs: StorageFs = { ...inner };
  // A call the inner layer can answer on the calling thread (see `withSyncForm`) keeps that form,
  // counted the same way, so counting changes nothing about how the stores call it.
  const counted = <A extends unknown[], R>(call: (...args: A) => Promise<R>, innerCall: unknown, before: (...args: A) => void, after: (result: R, ...args: A) => void = () => undefined) => {
    const sync = syncFormOf(innerCall as (...args: A) => Promise<R>);
    if (!sync) return call;
    return withSyncForm(call, (...args: A) => {
      before(...args);
      const result = sync.apply(inner, args);
      after(result, ...args);
      return result;
    });
  };
  for (const name of Object.keys(inner) as (keyof StorageFs)[]) {
    const call = inner[name] as (...args: unknown[]) => Promise<unknown>;
    (fs as unknown as Record<string, unknown>)[name] = counted(
      (...args: unknown[]) => {
        tally(name);
        return call.apply(inner, args);
      },
      call,
      () => tallyNow(name),
    );
  }
  const noteOpened = (fd: number, path: string) => {
    if (path.endsWith(readSuffix)) countedFds.add(fd);
  };
  fs.open = counted(
    async (path: string, flags: number, mode?: number) => {
      tally('open');
      opened.push(path);
      const fd = await inner.open(path, flags, mode);
      noteOpened(fd, path);
      return fd;
    },
    inner.open,
    (path) => {
      tallyNow('open');
      opened.push(path);
    },
    (fd, path) => noteOpened(fd, path),
  );
  fs.read = async (fd, buffer, offset, length, position) => {
    tally('read');
    const count = await inner.read(fd, buffer, offset, length, position);
    if (countedFds.has(fd)) bytesRead += count;
    return count;
  };
  // Answered on the calling thread, but file operations all the same: counted as what they are.
  if (inner.lstatNow) {
    const lstatNow = inner.lstatNow.bind(inner);
    fs.lstatNow = (path) => {
      tallyNow('lstat');
      return lstatNow(path);
    };
  }
  if (inner.readdirNow) {
    const readdirNow = inner.readdirNow.bind(inner);
    fs.readdirNow = (path) => {
      tallyNow('readdir');
      return readdirNow(path);
    };
  }
  if (inner.readNow) {
    const readNow = inner.readNow.bind(inner);
    fs.readNow = (path, start, end) => {
      // The same system calls as an asynchronous read: open, size (when no end is given), read, close.
      tallyNow('open');
      opened.push(path);
      if (end === undefined) tallyNow('fsize');
      tallyNow('read');
      tallyNow('close');
      const bytes = readNow(path, start, end);
      if (bytes && path.endsWith(readSuffix)) bytesRead += bytes.length;
      return bytes;
    };
  }
  fs.link = counted(
    async (from: string, to: string) => {
      tally('link');
      await inner.link(from, to);
      tally('locks');
    },
    inner.link,
    () => tallyNow('link'),
    () => tally('locks'),
  );
  fs.close = counted(
    async (fd: number) => {
      tally('close');
      countedFds.delete(fd);
      return inner.close(fd);
    },
    inner.close,
    (fd) => {
      tallyNow('close');
      countedFds.delete(fd);
    },
  );
  return {
    fs,
    counts: () => {
      const byOperation = Object.fromEntries([...calls].filter(([name]) => name !== 'locks'));
      return {
        total: Object.values(byOperation).reduce((sum, count) => sum + count, 0),
        fsync: calls.get('fsync') ?? 0,
        fsyncDir: calls.get('fsyncDir') ?? 0,
        locks: calls.get('locks') ?? 0,
        bytesRead,
        synchronous,
        byOperation,
        opened: [...opened],
      };
    },
    reset: () => {
      calls = new Map();
      bytesRead = 0;
      synchronous = 0;
      opened = [];
    },
  };
}
