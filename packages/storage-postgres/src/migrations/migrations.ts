// The schema, as versioned migrations shipped with the package. Append new versions; never edit
// a released one (migrate() refuses a database whose applied migration differs from this text).

/** One schema step. */
export interface Migration {
  /** 1, 2, 3, …: applied in order, each exactly once. */
  readonly version: number;
  readonly name: string;
  /** Statements run in the migration's transaction (no parameters: fixed text only). */
  readonly sql: string;
}

/** Every migration this version of the package knows, in order. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'trees and session logs',
    sql: `
CREATE TABLE troupe_trees (
  tree_id text PRIMARY KEY,
  -- The tree's revision is the row version: every commit or applied settlement adds 1 in the
  -- same transaction as its file writes.
  revision bigint NOT NULL CHECK (revision >= 1),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE troupe_tree_files (
  tree_id text NOT NULL REFERENCES troupe_trees (tree_id) ON DELETE CASCADE,
  path text NOT NULL,
  -- UTF-8 bytes: text columns cannot hold U+0000, a player's file can.
  content bytea NOT NULL,
  -- The revision that last wrote the file.
  revision bigint NOT NULL,
  PRIMARY KEY (tree_id, path)
);
CREATE TABLE troupe_tree_settlements (
  tree_id text NOT NULL REFERENCES troupe_trees (tree_id) ON DELETE CASCADE,
  marker text NOT NULL,
  digest text NOT NULL,
  revision bigint NOT NULL,
  -- At most one settlement per marker: the idempotency of settle().
  PRIMARY KEY (tree_id, marker)
);
CREATE TABLE troupe_sessions (
  session_id text PRIMARY KEY,
  -- The next event id's number (ids survive branch and import, so this is not the length).
  next_seq bigint NOT NULL,
  length bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE troupe_session_events (
  session_id text NOT NULL REFERENCES troupe_sessions (session_id) ON DELETE CASCADE,
  -- Append order, 0-based.
  position bigint NOT NULL,
  -- The number in the event id (e<seq>).
  seq bigint NOT NULL,
  type text NOT NULL,
  -- JSON-encoded lookup key (so any string, even with U+0000, is exact), NULL without a key.
  lookup_key text,
  -- The event without id and sessionId, as JSON text (kept byte for byte, unlike jsonb).
  body text NOT NULL,
  PRIMARY KEY (session_id, position),
  UNIQUE (session_id, seq)
);
-- findLatest(type, key): one index probe, newest first.
CREATE INDEX troupe_session_events_by_key ON troupe_session_events (session_id, type, lookup_key, position DESC) WHERE lookup_key IS NOT NULL;
`,
  },
  {
    version: 2,
    name: 'settlement blocks as rows',
    sql: `
-- A settlement appends a row instead of rewriting the file's value (bytea values are rewritten
-- whole), so a settle costs the same after 10 or 10 000 turns. A file's content is its base
-- value followed by its blocks in order; a commit that writes the file folds them away.
CREATE TABLE troupe_tree_appends (
  tree_id text NOT NULL,
  path text NOT NULL,
  -- The revision of the settlement that appended the block (one per file per settlement).
  seq bigint NOT NULL,
  block bytea NOT NULL,
  PRIMARY KEY (tree_id, path, seq),
  FOREIGN KEY (tree_id, path) REFERENCES troupe_tree_files (tree_id, path) ON DELETE CASCADE
);
-- True when the file (base and blocks) is empty or ends with a newline: a new block then needs
-- no separating newline, and the file's last byte is never read.
ALTER TABLE troupe_tree_files ADD COLUMN ends_clean boolean NOT NULL DEFAULT true;
-- Blocks not yet folded into the base value (folded every 256, so reads stay cheap).
ALTER TABLE troupe_tree_files ADD COLUMN blocks integer NOT NULL DEFAULT 0;
UPDATE troupe_tree_files SET ends_clean = (length(content) = 0 OR get_byte(content, length(content) - 1) = 10);
`,
  },
  {
    version: 3,
    name: 'events by type',
    sql: `
-- readTyped(types, limit): the newest events of a few types (the kernel's history window after a
-- process start) through one index range per type, without reading the other events' bodies.
CREATE INDEX troupe_session_events_by_type ON troupe_session_events (session_id, type, position);
`,
  },
];

/** The schema version this package needs (the last migration's). */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
