import type { WorldInfoPosition } from '@troupe/kernel';
import * as z from 'zod';
import type { SelectiveLogic, WorldInfoEntry, WorldInfoRole } from '../entry.js';
import { SCAN_SOURCES, SCAN_SOURCE_FLAGS } from '../scan-sources.js';

/** SillyTavern's default `atDepth` depth. */
export const DEFAULT_DEPTH = 4;
/** SillyTavern's default inclusion-group weight. */
export const DEFAULT_GROUP_WEIGHT = 100;
/** Most entries one book may hold. */
export const MAX_BOOK_ENTRIES = 10_000;

// ST stores positions as numbers (world_info_position: … EMBottom 6, outlet 7).
const POSITIONS: readonly WorldInfoPosition[] = ['before', 'after', 'authorsNoteTop', 'authorsNoteBottom', 'atDepth', 'examplesTop', 'examplesBottom', 'outlet'];
// ST's world_info_logic: AND_ANY 0, NOT_ALL 1, NOT_ANY 2, AND_ALL 3.
const LOGIC: readonly SelectiveLogic[] = ['andAny', 'notAll', 'notAny', 'andAll'];
// ST's extension_prompt_roles: SYSTEM 0, USER 1, ASSISTANT 2.
const ROLES: readonly WorldInfoRole[] = ['system', 'user', 'assistant'];
const KNOWN_DECORATORS = ['@@activate', '@@dont_activate'];

const NUMERIC = /^\s*-?\d+(\.\d+)?\s*$/;

// Lenient like ST: absent and null mean "default", numbers may come as numeric strings. Anything
// else is an error rather than a silent default, so nothing the author wrote is dropped unseen.
// (`.optional()` before a transform keeps the object key optional in zod 4.)
const looseNumber = z.union([z.number().finite(), z.string().regex(NUMERIC, 'expected a number').transform(Number), z.null()]).optional();
const looseBoolean = z.union([z.boolean(), z.literal(0), z.literal(1), z.enum(['true', 'false']), z.null()]).optional().transform((value) => {
  if (value === null || value === undefined) return value;
  return value === true || value === 1 || value === 'true';
});
const keyList = z
  .union([z.array(z.union([z.string(), z.number()])), z.string(), z.null()])
  .optional()
  .transform((value) => (value === null || value === undefined ? [] : typeof value === 'string' ? value.split(',') : value.map(String)))
  .transform((keys) => keys.map((key) => key.trim()).filter((key) => key !== ''));
const text = z.union([z.string(), z.number(), z.null()]).optional().transform((value) => (value === null || value === undefined ? '' : String(value)));
const roleValue = z.union([z.number(), z.enum(['system', 'user', 'assistant']), z.string().regex(NUMERIC).transform(Number), z.null()]).optional();
const delayUntilRecursion = z.union([z.boolean(), z.number(), z.string().regex(NUMERIC).transform(Number), z.null()]).optional();

/**
 * Schema of one entry in SillyTavern's world-info shape (`key`, `keysecondary`, `disable`, numeric
 * `position`, …). Unknown fields are allowed (kept in the caller's source, ignored here).
 */
export const StEntrySchema = z.looseObject({
  uid: z.union([z.number(), z.string()]).optional(),
  key: keyList,
  keysecondary: keyList,
  comment: text,
  content: text,
  constant: looseBoolean,
  selective: looseBoolean,
  selectiveLogic: looseNumber,
  order: looseNumber,
  position: looseNumber,
  disable: looseBoolean,
  excludeRecursion: looseBoolean,
  preventRecursion: looseBoolean,
  delayUntilRecursion,
  probability: looseNumber,
  useProbability: looseBoolean,
  depth: looseNumber,
  group: text,
  groupOverride: looseBoolean,
  groupWeight: looseNumber,
  scanDepth: looseNumber,
  caseSensitive: looseBoolean,
  matchWholeWords: looseBoolean,
  useGroupScoring: looseBoolean,
  role: roleValue,
  sticky: looseNumber,
  cooldown: looseNumber,
  delay: looseNumber,
  ignoreBudget: looseBoolean,
  outletName: text,
  // ST keeps the names as written (`entry.triggers.includes(trigger)`), so they are not checked.
  triggers: z
    .union([z.array(z.string()), z.null()])
    .optional()
    .transform((value) => value ?? []),
  matchPersonaDescription: looseBoolean,
  matchCharacterDescription: looseBoolean,
  matchCharacterPersonality: looseBoolean,
  matchCharacterDepthPrompt: looseBoolean,
  matchScenario: looseBoolean,
  matchCreatorNotes: looseBoolean,
});

/** An entry as {@link StEntrySchema} outputs it. */
export type StEntry = z.output<typeof StEntrySchema>;

/**
 * Splits `@@decorator` lines off the start of an entry's content (SillyTavern's `parseDecorators`:
 * known decorators are collected, `@@@x` escapes an unknown one, the first other line ends them).
 * @param content - the raw content
 * @returns the decorators and the remaining content
 */
export function parseDecorators(content: string): { decorators: string[]; content: string } {
  if (!content.startsWith('@@')) return { decorators: [], content };
  const lines = content.split('\n');
  const decorators: string[] = [];
  let fallback = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (!line.startsWith('@@')) return { decorators, content: lines.slice(index).join('\n') };
    if (line.startsWith('@@@') && !fallback) continue;
    const name = line.startsWith('@@@') ? line.slice(1) : line;
    if (KNOWN_DECORATORS.some((known) => name.startsWith(known))) {
      decorators.push(name);
      fallback = false;
    } else {
      fallback = true;
    }
  }
  // Only decorator lines: ST keeps the content as it was.
  return { decorators, content };
}

function nonNegative(value: number | null | undefined, fallback: number): number {
  return value === null || value === undefined || value < 0 ? fallback : value;
}

function clampPercent(value: number | null | undefined): number {
  if (value === null || value === undefined) return 100;
  return Math.min(100, Math.max(0, value));
}

function toRole(value: number | string | null | undefined): WorldInfoRole {
  if (typeof value === 'string') return value as WorldInfoRole;
  return ROLES[value ?? 0] ?? 'system';
}

/**
 * Normalises a validated ST-shaped entry (SillyTavern's defaults for everything absent).
 * @param entry - output of {@link StEntrySchema}
 * @param fallbackUid - the uid when the entry has none (its key or index)
 * @returns the entry, or a reason it cannot be placed (an unknown `position`)
 */
export function normaliseStEntry(entry: StEntry, fallbackUid: string): { entry: WorldInfoEntry } | { skipped: string } {
  const position = POSITIONS[entry.position ?? 0];
  if (position === undefined) return { skipped: `unknown position ${String(entry.position)}` };
  const { decorators, content } = parseDecorators(entry.content);
  const delayLevel = entry.delayUntilRecursion === true ? 1 : typeof entry.delayUntilRecursion === 'number' && entry.delayUntilRecursion > 0 ? Math.floor(entry.delayUntilRecursion) : 0;
  return {
    entry: {
      uid: entry.uid === undefined ? fallbackUid : String(entry.uid),
      comment: entry.comment,
      content,
      keys: entry.key,
      secondaryKeys: entry.keysecondary,
      // ST's template default is selective: true; cards set it explicitly.
      selective: entry.selective ?? true,
      selectiveLogic: LOGIC[entry.selectiveLogic ?? 0] ?? 'andAny',
      constant: entry.constant ?? false,
      disabled: entry.disable ?? false,
      order: entry.order ?? 100,
      position,
      depth: nonNegative(entry.depth, DEFAULT_DEPTH),
      role: toRole(entry.role),
      excludeRecursion: entry.excludeRecursion ?? false,
      preventRecursion: entry.preventRecursion ?? false,
      delayUntilRecursion: delayLevel,
      probability: clampPercent(entry.probability),
      useProbability: entry.useProbability ?? true,
      groups: entry.group
        .split(/,\s*/)
        .map((group) => group.trim())
        .filter((group) => group !== ''),
      groupOverride: entry.groupOverride ?? false,
      groupWeight: nonNegative(entry.groupWeight, DEFAULT_GROUP_WEIGHT),
      useGroupScoring: entry.useGroupScoring ?? null,
      scanDepth: entry.scanDepth === null || entry.scanDepth === undefined || entry.scanDepth < 0 ? null : Math.floor(entry.scanDepth),
      caseSensitive: entry.caseSensitive ?? null,
      matchWholeWords: entry.matchWholeWords ?? null,
      sticky: Math.floor(nonNegative(entry.sticky, 0)),
      cooldown: Math.floor(nonNegative(entry.cooldown, 0)),
      delay: Math.floor(nonNegative(entry.delay, 0)),
      ignoreBudget: entry.ignoreBudget ?? false,
      // Kept as written: ST looks the outlet up by this exact name.
      ...(position === 'outlet' ? { outletName: entry.outletName } : {}),
      triggers: entry.triggers,
      matchSources: SCAN_SOURCES.filter((source) => entry[SCAN_SOURCE_FLAGS[source] as keyof StEntry] === true),
      decorators,
    },
  };
}
