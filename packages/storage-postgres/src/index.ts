// Public API of @troupe/storage-postgres. Explicit named exports only.
export { postgresStorage } from './postgres-storage.js';
export type { PostgresStorage } from './postgres-storage.js';
export type { PostgresStorageOptions } from './db/options.js';
export { PgTreeStore } from './tree/pg-tree-store.js';
export { PgSessionLog } from './session/pg-session-log.js';
export { PgLiveUpdates } from './live/pg-live-updates.js';
export type { SessionEventsUpdate, TreeRevisionUpdate, Unsubscribe, WatchOptions } from './live/pg-live-updates.js';
export type { MigrateOptions, MigrateResult } from './migrations/migrate.js';
export { SCHEMA_VERSION } from './migrations/migrations.js';
export { PostgresStorageError } from './errors.js';
export type { PostgresStorageErrorCode } from './errors.js';
