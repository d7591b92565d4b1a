// Public API of @troupe/storage-fs. Explicit named exports only.
export { fsStorage, resolveStorageRoot } from './fs-storage.js';
export type { FsStorage, FsStorageOptions } from './fs-storage.js';
export { FsTreeStore } from './tree/fs-tree-store.js';
export type { FsTreeStoreOptions } from './tree/fs-tree-store.js';
export { FsSessionLog } from './session/fs-session-log.js';
export type { FsSessionLogOptions } from './session/fs-session-log.js';
export { nodeStorageFs } from './fs/storage-fs.js';
export type { DirEntry, EntryStat, StorageFs } from './fs/storage-fs.js';
export { countingStorageFs } from './fs/counting-fs.js';
export type { CountingStorageFs, StorageFsCounts } from './fs/counting-fs.js';
export { atomicWriteFile } from './fs/atomic-write.js';
export { withFileLock } from './fs/file-lock.js';
export type { FileLockOptions, HeldLock } from './fs/file-lock.js';
export { DEFAULT_LEASE_MS } from './fs/lock-owner.js';
