// SQL over a tree's files (fixed text; every value a bound parameter). A file is a
// troupe_tree_files row (base value) plus its troupe_tree_appends blocks, in seq order.

/** A file's whole content: the base value and its blocks. `f` is the troupe_tree_files row. */
const EFFECTIVE_CONTENT = `f.content || coalesce((SELECT string_agg(a.block, ''::bytea ORDER BY a.seq) FROM troupe_tree_appends a WHERE a.tree_id = f.tree_id AND a.path = f.path), ''::bytea)`;

/** The revision and every file of a tree in one statement (one committed state, never a mix). `$1` tree id. */
export const READ_TREE = `SELECT t.revision, f.path, CASE WHEN f.blocks > 0 THEN ${EFFECTIVE_CONTENT} ELSE f.content END AS content
FROM troupe_trees t LEFT JOIN troupe_tree_files f ON f.tree_id = t.tree_id WHERE t.tree_id = $1`;

/** Every file of a tree (inside a transaction). `$1` tree id. */
export const READ_FILES = `SELECT f.path, CASE WHEN f.blocks > 0 THEN ${EFFECTIVE_CONTENT} ELSE f.content END AS content FROM troupe_tree_files f WHERE f.tree_id = $1`;

/** One file's content. `$1` tree id, `$2` path. */
export const READ_FILE = `SELECT CASE WHEN f.blocks > 0 THEN ${EFFECTIVE_CONTENT} ELSE f.content END AS content FROM troupe_tree_files f WHERE f.tree_id = $1 AND f.path = $2`;

/**
 * Writes whole files (their blocks are dropped: the new value replaces everything).
 * `$1` tree id, `$2` paths, `$3` contents (bytea), `$4` revision, `$5` ends-clean flags.
 */
export const WRITE_FILES = `WITH written AS (
  INSERT INTO troupe_tree_files (tree_id, path, content, revision, ends_clean, blocks)
  SELECT $1, w.path, w.content, $4, w.ends_clean, 0 FROM unnest($2::text[], $3::bytea[], $5::boolean[]) AS w(path, content, ends_clean)
  ON CONFLICT (tree_id, path) DO UPDATE SET content = excluded.content, revision = excluded.revision, ends_clean = excluded.ends_clean, blocks = 0
  RETURNING path
)
DELETE FROM troupe_tree_appends a USING written WHERE a.tree_id = $1 AND a.path = written.path`;

/**
 * Appends one settlement's blocks: creates missing files empty, adds a separating newline where
 * the file does not end clean, records the block as a row. `$1` tree id, `$2` paths, `$3` blocks
 * (bytea, each ending with a newline), `$4` revision.
 */
export const APPEND_BLOCKS = `WITH ensured AS (
  INSERT INTO troupe_tree_files AS f (tree_id, path, content, revision, ends_clean, blocks)
  SELECT $1, a.path, ''::bytea, $4, true, 1 FROM unnest($2::text[]) AS a(path)
  ON CONFLICT (tree_id, path) DO UPDATE SET revision = excluded.revision, ends_clean = true, blocks = f.blocks + 1
  -- The subquery reads the statement's snapshot: the row as it was before (NULL for a new file).
  RETURNING f.path, (SELECT old.ends_clean FROM troupe_tree_files old WHERE old.tree_id = $1 AND old.path = f.path) AS was_clean
)
INSERT INTO troupe_tree_appends (tree_id, path, seq, block)
SELECT $1, a.path, $4, CASE WHEN coalesce(e.was_clean, true) THEN a.block ELSE '\\x0a'::bytea || a.block END
FROM unnest($2::text[], $3::bytea[]) AS a(path, block) JOIN ensured e ON e.path = a.path`;

/** How many blocks a file keeps as rows before they are folded into its base value. */
export const FOLD_AFTER_BLOCKS = 256;

/** Folds the blocks of files that have {@link FOLD_AFTER_BLOCKS} or more into their base value. `$1` tree id, `$2` paths, `$3` threshold. */
export const FOLD_BLOCKS = `WITH folded AS (
  UPDATE troupe_tree_files f SET content = ${EFFECTIVE_CONTENT}, blocks = 0
  WHERE f.tree_id = $1 AND f.path = ANY($2::text[]) AND f.blocks >= $3
  RETURNING f.path
)
DELETE FROM troupe_tree_appends a USING folded WHERE a.tree_id = $1 AND a.path = folded.path`;
