import { hash } from 'node:crypto';
import { KernelStorageError } from './storage-errors.js';
import { MANIFEST_PATH, SETTLE_MARKER_PATTERN, TREE_ID_PATTERN, type TreeCommit, type TreeSettlement } from './tree-store.js';

// Rules every TreeStore implementation shares, kept here so in-memory and on-disk stores can
// never disagree about what a valid path is or what a settled block looks like.

const DIRECTORY_SEGMENT = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const FILE_SEGMENT = /^[a-z0-9][a-z0-9_-]{0,63}\.(md|json)$/;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const MAX_PATH_LENGTH = 255;
const MAX_DEPTH = 8;

/**
 * Checks a tree id against the allowlist.
 * @param treeId - candidate id
 * @throws {KernelStorageError} TREE_INVALID_ID
 */
export function validateTreeId(treeId: string): void {
  if (typeof treeId !== 'string' || !TREE_ID_PATTERN.test(treeId) || WINDOWS_DEVICE.test(treeId)) {
    throw new KernelStorageError(
      'TREE_INVALID_ID',
      `Invalid id ${JSON.stringify(treeId)}: use 1–64 of a-z, 0-9, "_" and "-", starting with a letter or digit`,
    );
  }
}

/**
 * Normalises (NFC) and checks a file path inside a tree: relative POSIX segments from an
 * allowlist, ending in `.md` or `.json`. Rejects `..`, absolute paths, backslashes, NUL,
 * Windows device names, trailing dots or spaces and over-long paths — by construction of the
 * allowlist, nothing can resolve outside the tree.
 * @param path - candidate path, e.g. `characters/lia/persona.md`
 * @returns the normalised path
 * @throws {KernelStorageError} TREE_INVALID_PATH
 */
export function validateTreePath(path: string): string {
  const known = typeof path === 'string' ? validPaths.get(path) : undefined;
  if (known !== undefined) return known;
  const normalised = checkTreePath(path);
  if (validPaths.size >= VALID_PATH_ENTRIES) validPaths.delete(validPaths.keys().next().value as string);
  validPaths.set(path, normalised);
  return normalised;
}

// Paths that passed lately, with their normal form: a tree's commits and settlements name the
// same few files turn after turn (history.md, each knowledge.md), and the check is a pure
// function of the text. Only valid paths are kept; bounded, oldest dropped first.
const VALID_PATH_ENTRIES = 256;
const validPaths = new Map<string, string>();

function checkTreePath(path: string): string {
  const fail = (why: string): never => {
    throw new KernelStorageError('TREE_INVALID_PATH', `Invalid file path ${JSON.stringify(path)}: ${why}`);
  };
  if (typeof path !== 'string' || path.length === 0) return fail('must be a non-empty string');
  const normalised = path.normalize('NFC');
  if (normalised.length > MAX_PATH_LENGTH) fail(`longer than ${MAX_PATH_LENGTH} characters`);
  const segments = normalised.split('/');
  if (segments.length > MAX_DEPTH) fail(`deeper than ${MAX_DEPTH} levels`);
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    const pattern = last ? FILE_SEGMENT : DIRECTORY_SEGMENT;
    if (!pattern.test(segment)) {
      fail(
        last
          ? `"${segment}" must be 1–64 of a-z, 0-9, "_" and "-" followed by .md or .json`
          : `folder "${segment}" must be 1–64 of a-z, 0-9, "_" and "-"`,
      );
    }
    const stem = last ? segment.replace(/\.(md|json)$/, '') : segment;
    if (WINDOWS_DEVICE.test(stem)) fail(`"${segment}" is a reserved device name`);
  });
  return normalised;
}

/**
 * Checks a settlement marker.
 * @param marker - candidate marker
 * @throws {KernelStorageError} TREE_INVALID_MARKER
 */
export function validateSettleMarker(marker: string): void {
  if (typeof marker !== 'string' || !SETTLE_MARKER_PATTERN.test(marker)) {
    throw new KernelStorageError(
      'TREE_INVALID_MARKER',
      `Invalid settle marker ${JSON.stringify(marker)}: use 1–200 of letters, digits, ":", ".", "_" and "-"`,
    );
  }
}

/**
 * The exact bytes a settlement appends to a file: a marker line, then the text, newline-ended.
 * A separating newline is added when the existing content does not end with one.
 * @param existing - the file's current content ('' when new)
 * @param marker - the settlement marker
 * @param text - the text to append
 * @returns the file's new content
 */
export function appendSettleBlock(existing: string, marker: string, text: string): string {
  const separator = existing.length > 0 && !existing.endsWith('\n') ? '\n' : '';
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return `${existing}${separator}<!-- troupe:settle ${marker} -->\n${body}`;
}

/**
 * A digest that identifies a settlement's content, so "same marker, other content" is detected.
 * @param appends - the settlement's appends
 * @returns hex SHA-256 over the sorted (path, text) pairs
 */
export function settlementDigest(appends: Readonly<Record<string, string>>): string {
  const pairs = Object.keys(appends)
    .sort()
    .map((path) => [path, appends[path]]);
  return hash('sha256', JSON.stringify(pairs), 'hex');
}

// Manifest texts this function wrote, with the text before and after their revision digits.
// Stores stamp on every commit and settlement, nearly always a text they stamped the time
// before: that text stamped again is the same text with other digits (parsing it and printing
// it again gives exactly that), so it is built without a parse. Bounded: oldest dropped first.
const STAMPED_ENTRIES = 64;
const stampedTexts = new Map<string, readonly [before: string, after: string]>();
// In two-space pretty-printed JSON only the members of the top-level object are indented by
// exactly two spaces (deeper members by more; a string value never holds a raw line break), so
// the first line that starts like this is the top-level `revision`.
const TOP_LEVEL_REVISION = '\n  "revision": ';

/**
 * Writes the store-owned `revision` into a manifest's JSON object, keeping every other field
 * and the key order. Content that is not a JSON object is returned unchanged: a player's broken
 * manifest is reported by whoever reads it, never rewritten by the store.
 * @param content - the manifest text
 * @param revision - the tree's new revision
 * @returns the manifest text to store (two-space pretty-printed JSON with a final line break)
 */
export function stampManifestRevision(content: string, revision: number): string {
  const known = Number.isSafeInteger(revision) ? stampedTexts.get(content) : undefined;
  if (known !== undefined) {
    // The store replaces that text with this one: keep the room for other trees' manifests.
    stampedTexts.delete(content);
    return rememberStamped(`${known[0]}${revision}${known[1]}`, known);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return content;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return content;
  const stamped = { ...(parsed as Record<string, unknown>), revision };
  const text = `${JSON.stringify(stamped, null, 2)}\n`;
  if (Number.isSafeInteger(revision)) {
    const digits = String(revision);
    const start = text.indexOf(TOP_LEVEL_REVISION) + TOP_LEVEL_REVISION.length;
    if (start >= TOP_LEVEL_REVISION.length && text.startsWith(digits, start)) rememberStamped(text, [text.slice(0, start), text.slice(start + digits.length)]);
  }
  return text;
}

function rememberStamped(text: string, around: readonly [string, string]): string {
  if (!stampedTexts.has(text)) {
    if (stampedTexts.size >= STAMPED_ENTRIES) stampedTexts.delete(stampedTexts.keys().next().value as string);
    stampedTexts.set(text, around);
  }
  return text;
}

/**
 * SHA-256 of a text's UTF-8 bytes, hex-encoded.
 * @param text - any string
 */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/**
 * Checks the shape of the files given to `create`: an object of path → string.
 * @param files - candidate files
 * @returns the files with validated, NFC-normalised paths
 * @throws {KernelStorageError} TREE_INVALID_INPUT, TREE_INVALID_PATH
 */
export function validateTreeFiles(files: unknown): Record<string, string> {
  if (!isPlainObject(files)) throw invalidInput('files must be an object of path → text');
  const result: Record<string, string> = {};
  for (const [path, content] of Object.entries(files)) {
    if (typeof content !== 'string') throw invalidInput(`the content of ${JSON.stringify(path)} must be a string`);
    result[validateTreePath(path)] = content;
  }
  return result;
}

/**
 * Checks a commit before anything is read or written.
 * @param change - candidate commit
 * @returns the base revision and the writes with validated paths
 * @throws {KernelStorageError} TREE_INVALID_INPUT, TREE_INVALID_PATH
 */
export function validateTreeCommit(change: unknown): { baseRevision: number; writes: Array<readonly [string, string | null]> } {
  if (!isPlainObject(change)) throw invalidInput('a commit must be an object {baseRevision, writes}');
  const { baseRevision, writes } = change as Partial<TreeCommit>;
  if (!Number.isSafeInteger(baseRevision) || (baseRevision as number) < 1) throw invalidInput('baseRevision must be the positive integer revision you read');
  if (!isPlainObject(writes)) throw invalidInput('writes must be an object of path → text (or null to delete)');
  const checked = Object.entries(writes as object).map(([path, content]) => {
    if (content !== null && typeof content !== 'string') throw invalidInput(`the content of ${JSON.stringify(path)} must be a string, or null to delete`);
    return [validateTreePath(path), content as string | null] as const;
  });
  return { baseRevision: baseRevision as number, writes: checked };
}

/**
 * Checks a settlement before anything is read or written.
 * @param settlement - candidate settlement
 * @returns the marker and the appends with validated paths
 * @throws {KernelStorageError} TREE_INVALID_INPUT, TREE_INVALID_MARKER, TREE_INVALID_PATH
 */
export function validateTreeSettlement(settlement: unknown): { marker: string; appends: Record<string, string> } {
  if (!isPlainObject(settlement)) throw invalidInput('a settlement must be an object {marker, appends}');
  const { marker, appends } = settlement as Partial<TreeSettlement>;
  validateSettleMarker(marker as string);
  if (!isPlainObject(appends)) throw invalidInput('appends must be an object of path → text');
  const checked: Record<string, string> = {};
  for (const [path, text] of Object.entries(appends as object)) {
    if (typeof text !== 'string') throw invalidInput(`the text appended to ${JSON.stringify(path)} must be a string`);
    checked[validateTreePath(path)] = text;
  }
  return { marker: marker as string, appends: checked };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalidInput(why: string): KernelStorageError {
  return new KernelStorageError('TREE_INVALID_INPUT', `Invalid tree input: ${why}`);
}

export { MANIFEST_PATH };
