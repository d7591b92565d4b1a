// NOTIFY channels. Fixed names (LISTEN takes an identifier, not a parameter); the payload names
// the schema so several installations sharing one database never see each other's updates.

/** Announces appended session events: payload `{"schema","sessionId","lastId"}`. */
export const SESSION_EVENTS_CHANNEL = 'troupe_session_events';

/** Announces a workspace's new revision: payload `{"schema","treeId","revision"}`. */
export const TREE_REVISIONS_CHANNEL = 'troupe_tree_revisions';

/**
 * SQL (no user text: `$n` placeholders only) that announces a tree's new revision when the
 * surrounding transaction commits (NOTIFY is transactional: a rolled-back commit announces nothing).
 * @param treeParam - placeholder of the tree id, e.g. `$1`
 * @param revisionParam - placeholder of the revision
 */
export function notifyTreeSql(treeParam: string, revisionParam: string): string {
  return `SELECT pg_notify('${TREE_REVISIONS_CHANNEL}', json_build_object('schema', current_schema(), 'treeId', ${treeParam}::text, 'revision', ${revisionParam}::bigint)::text)`;
}
