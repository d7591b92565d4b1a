import { noteSyncStats, syncCallsAllowed } from './stat-now.js';
import { type StorageFs, syncFormOf } from './storage-fs.js';

// Every call through libuv's thread pool costs a hand-off to a pool thread and a wake-up of the
// event loop when it is done: tens of µs of CPU each, more right after the process slept, while
// the call itself (opening, linking, renaming or closing a small file on a local disk) takes a few
// µs. A story turn makes ~80 such calls around its locks, appends and commit. The quick layer
// answers them on the calling thread, which changes neither their order nor their effect (every
// caller awaits each call before the next), and leaves on the thread pool only what may really
// take long: fsync (the disk's flush), big writes and reads, tree removal.

/** The calls answered on the calling thread when the layer registered a synchronous form for them. */
const QUICK_CALLS = ['open', 'write', 'fsize', 'ftruncate', 'close', 'rename', 'link', 'unlink', 'mkdir', 'lstat'] as const;

/** Writes larger than this stay on the thread pool (≈ 1 ms from the page cache; a settlement's block or a log batch is far smaller). */
export const MAX_SYNC_WRITE_BYTES = 1024 * 1024;

/** Every call a {@link StorageFs} may have. */
const ALL_CALLS = [
  'open',
  'write',
  'read',
  'fsize',
  'fsync',
  'ftruncate',
  'futimes',
  'close',
  'rename',
  'link',
  'unlink',
  'mkdir',
  'removeTree',
  'readdir',
  'lstat',
  'fsyncDir',
  'lstatNow',
  'readdirNow',
  'readNow',
] as const satisfies readonly (keyof StorageFs)[];

const layers = new WeakMap<StorageFs, StorageFs>();

type AnyCall = (...args: unknown[]) => Promise<unknown>;

/**
 * The layer the stores use over `fs`: the calls for which `fs` has a synchronous form (see
 * `withSyncForm`; Node's layer and the counting layer over it do) are answered on the calling
 * thread while that stays fast (a layer found slow gets its asynchronous calls again for a while,
 * as for the stat checks); every other call — any call a test or wrapper replaced — is `fs`'s own.
 * @param fs - file-system layer
 * @returns `fs` itself when it has no synchronous forms, else a layer over it (one per `fs`)
 */
export function quickLayer(fs: StorageFs): StorageFs {
  const known = layers.get(fs);
  if (known) return known;
  const forms = QUICK_CALLS.map((name) => [name, syncFormOf(fs[name] as AnyCall)] as const).filter(([, sync]) => sync !== undefined);
  if (forms.length === 0) return fs;
  const layer: Record<string, unknown> = {};
  for (const name of ALL_CALLS) {
    const call = fs[name] as AnyCall | undefined;
    if (typeof call === 'function') layer[name] = call.bind(fs);
  }
  const quick = layer as unknown as StorageFs;
  for (const [name, sync] of forms) {
    const call = fs[name] as AnyCall;
    const onThread = sync as (...args: unknown[]) => unknown;
    layer[name] = async (...args: unknown[]) => {
      // A big write would hold the event loop: it goes to the thread pool like a slow layer's calls.
      if (!syncCallsAllowed(quick) || (name === 'write' && (args[3] as number) > MAX_SYNC_WRITE_BYTES)) return call.apply(fs, args);
      const startedAt = performance.now();
      try {
        return onThread(...args);
      } finally {
        noteSyncStats(quick, startedAt);
      }
    };
  }
  layers.set(fs, quick);
  layers.set(quick, quick);
  return quick;
}
