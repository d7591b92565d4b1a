import * as z from 'zod';
import type { LorebookScope, WorldInfoEntry } from '../entry.js';
import { LorebookError, describeZodIssues } from '../errors.js';
import type { LorebookImport, SkippedEntry } from './import-result.js';
import { MAX_BOOK_ENTRIES, StEntrySchema, normaliseStEntry } from './st-entry.js';

/**
 * Validates and normalises ST-shaped entries into a book; an entry that fails validation fails the
 * whole import (with its path), so a malformed file never half-imports.
 * @param name - the book's name
 * @param scope - where the book is attached
 * @param items - `[fallbackUid, ST-shaped entry, path prefix]` per entry
 * @param alreadySkipped - entries the caller left out before (reported first)
 * @returns the book and the skipped entries
 * @throws {LorebookError} LOREBOOK_INVALID, LOREBOOK_TOO_LARGE
 */
export function collectEntries(name: string, scope: LorebookScope, items: readonly (readonly [string, unknown, string])[], alreadySkipped: readonly SkippedEntry[] = []): LorebookImport {
  const total = items.length + alreadySkipped.length;
  if (total > MAX_BOOK_ENTRIES) throw new LorebookError('LOREBOOK_TOO_LARGE', `Book "${name}" has ${total} entries; the limit is ${MAX_BOOK_ENTRIES}`);
  const entries: WorldInfoEntry[] = [];
  const skipped: SkippedEntry[] = [...alreadySkipped];
  const seen = new Set<string>();
  const issues: z.core.$ZodIssue[] = [];
  for (const [fallbackUid, raw, path] of items) {
    const parsed = StEntrySchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) issues.push({ ...issue, path: [...path.split('.'), ...issue.path] });
      continue;
    }
    const result = normaliseStEntry(parsed.data, fallbackUid);
    if ('skipped' in result) {
      skipped.push({ uid: parsed.data.uid === undefined ? fallbackUid : String(parsed.data.uid), reason: result.skipped });
      continue;
    }
    // Two entries with one uid would share timed effects; ST keys its entries by uid, so keep the first.
    if (seen.has(result.entry.uid)) {
      skipped.push({ uid: result.entry.uid, reason: 'duplicate uid' });
      continue;
    }
    seen.add(result.entry.uid);
    entries.push(result.entry);
  }
  if (issues.length > 0) {
    const described = describeZodIssues(issues);
    throw new LorebookError('LOREBOOK_INVALID', `Invalid world info "${name}": ${described.summary}`, { issues: described.issues });
  }
  // Frozen: a book is shared by every turn that uses it, and activation validates a frozen book
  // only once.
  const frozen = Object.freeze(entries.map(freezeEntry));
  return { book: Object.freeze({ name, scope, entries: frozen }), skipped: Object.freeze(skipped) };
}

function freezeEntry(entry: WorldInfoEntry): WorldInfoEntry {
  return Object.freeze({
    ...entry,
    keys: Object.freeze([...entry.keys]),
    secondaryKeys: Object.freeze([...entry.secondaryKeys]),
    groups: Object.freeze([...entry.groups]),
    decorators: Object.freeze([...entry.decorators]),
    triggers: Object.freeze([...(entry.triggers ?? [])]),
    matchSources: Object.freeze([...(entry.matchSources ?? [])]),
  });
}

/** Book-level name field, when the file carries one. */
export const NamedSchema = z.looseObject({ name: z.string().optional() });
