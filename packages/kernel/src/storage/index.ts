// @troupe/kernel/storage: the rules every TreeStore / SessionLog implementation shares, so an
// in-memory store, storage-fs and a database backend can never disagree. Plugin and app authors
// need only the ports (`TreeStore`, `SessionLog`) and errors from the main entry.
export { MANIFEST_PATH, SETTLE_MARKER_PATTERN, TREE_ID_PATTERN } from '../ports/tree-store.js';
export {
  appendSettleBlock,
  settlementDigest,
  stampManifestRevision,
  validateSettleMarker,
  validateTreeCommit,
  validateTreeFiles,
  validateTreeId,
  validateTreePath,
  validateTreeSettlement,
} from '../ports/tree-rules.js';
export {
  copyNewEvents,
  SESSION_ID_PATTERN,
  serializeNewEvents,
  storedEventJson,
  validateEventKey,
  validateNewEvent,
  validateNewEvents,
  validateReadTypedOptions,
  validateSessionId,
} from '../ports/session-log.js';
export { parseExport } from '../ports/session-export.js';
export { StoredEventFieldsSchema } from '../ports/stored-event.js';
export { hasSessionTurnLock } from '../ports/session-turn-lock.js';
