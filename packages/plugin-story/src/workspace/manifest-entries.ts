import { StoryError } from '../errors.js';
import { type PipelineSettings, STORY_ITEM_ID_PATTERN } from './manifest.js';

/** The manifest lists whose entries have ids. */
export type EntryList = 'characters' | 'sections' | 'sources';

/**
 * Checks that `id` may be added to `entries`: a valid item id not used yet.
 * @param entries - the current entries of the list
 * @param id - the new id
 * @param list - which list (for the message and `field`)
 * @throws {StoryError} STORY_INVALID_ID, STORY_DUPLICATE_ID
 */
export function checkNewId(entries: readonly { id: string }[], id: string, list: EntryList): void {
  if (!STORY_ITEM_ID_PATTERN.test(id)) {
    throw new StoryError('STORY_INVALID_ID', `Invalid ${list} id ${JSON.stringify(id)}: use 1–64 of a-z, 0-9, "_" and "-", starting with a letter or digit`, {
      field: `${list}.id`,
    });
  }
  if (entries.some((entry) => entry.id === id)) throw new StoryError('STORY_DUPLICATE_ID', `The workspace already has ${list} "${id}"`, { field: `${list}.id` });
}

/**
 * Finds the entry with `id`.
 * @param entries - the list's entries
 * @param id - the wanted id
 * @param list - which list (for the message and `field`)
 * @returns the entry
 * @throws {StoryError} STORY_ITEM_NOT_FOUND
 */
export function findEntry<T extends { id: string }>(entries: readonly T[], id: string, list: EntryList): T {
  const found = entries.find((entry) => entry.id === id);
  if (!found) throw new StoryError('STORY_ITEM_NOT_FOUND', `The workspace has no ${list} "${id}"`, { field: `${list}.id` });
  return found;
}

/**
 * Returns a copy of `entries` with the entry `id` replaced by `update(entry)`.
 * @param entries - the list's entries
 * @param id - the entry to change
 * @param list - which list (for the message and `field`)
 * @param update - computes the new entry from the old one
 * @returns the new list (same order)
 * @throws {StoryError} STORY_ITEM_NOT_FOUND
 */
export function replaceEntry<T extends { id: string }>(entries: readonly T[], id: string, list: EntryList, update: (entry: T) => T): T[] {
  findEntry(entries, id, list);
  return entries.map((entry) => (entry.id === id ? update(entry) : entry));
}

/**
 * Applies only the fields of `patch` that are listed in `keys` and not `undefined`, so a caller
 * (e.g. an HTTP body) can never change an entry's `id` or add unknown fields.
 * @param entry - the current entry
 * @param patch - the requested changes
 * @param keys - the fields that may change
 * @returns the patched entry
 */
export function applyPatch<T extends object, K extends keyof T>(entry: T, patch: Partial<Pick<T, K>>, keys: readonly K[]): T {
  const next = { ...entry };
  for (const key of keys) {
    const value = patch[key];
    if (value !== undefined) next[key] = value as T[K];
  }
  return next;
}

/** A change to the pipeline settings; `null` removes `provider`/`model` (back to the session's model). */
export interface PipelinePatch {
  readonly maxParallel?: number;
  readonly provider?: string | null;
  readonly model?: string | null;
  readonly webSearch?: boolean;
  /** The preparation deadline (ms); `null` restores the default. */
  readonly deadlineMs?: number | null;
  /** One stage call's timeout (ms); `null` restores the default. */
  readonly stageTimeoutMs?: number | null;
}

const PIPELINE_KEYS = ['maxParallel', 'provider', 'model', 'webSearch', 'deadlineMs', 'stageTimeoutMs'] as const;

/**
 * Applies a {@link PipelinePatch}: `undefined` keeps a setting, `null` removes it, anything else
 * replaces it. The result is validated when the manifest is written.
 * @param current - the current settings
 * @param patch - the requested changes (unknown keys are ignored)
 * @returns the new settings
 */
export function applyPipelinePatch(current: PipelineSettings, patch: PipelinePatch): PipelineSettings {
  const next: Record<string, unknown> = { ...current };
  for (const key of PIPELINE_KEYS) {
    const value = patch[key];
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return next as PipelineSettings;
}
