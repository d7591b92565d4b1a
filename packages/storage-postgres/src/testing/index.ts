// @troupe/storage-postgres/testing: a throwaway PostgreSQL server for test suites (this
// package's and any app's that runs its tests on real PostgreSQL).
export { findPostgresBin } from './find-postgres.js';
export { startThrowawayServer } from './throwaway-server.js';
export type { ThrowawayServer, ThrowawayServerOptions } from './throwaway-server.js';
