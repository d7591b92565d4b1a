import * as z from 'zod';
import type { Lorebook } from './entry.js';
import { LorebookError, describeZodIssues } from './errors.js';
import { GENERATION_TRIGGERS, type GenerationTrigger } from './generation-trigger.js';
import { SCAN_SOURCES, ScanDataSchema, type WorldInfoScanData } from './scan-sources.js';
import { WorldInfoSettingsSchema, type WorldInfoSettings, type WorldInfoSettingsInput } from './settings.js';
import { EMPTY_STATE, type WorldInfoState, WorldInfoStateSchema } from './timed-effects.js';

/** A chat message as world info scans it. */
export interface ScanMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
  /** Speaker name for `includeNames` (default: `names.user` / `names.char` by role). */
  readonly name?: string;
}

/** Everything one activation reads. Pure: nothing here is mutated. */
export interface ActivateWorldInfoInput {
  /** Books in play (names must be unique). */
  readonly books: readonly Lorebook[];
  /** Earlier messages, oldest first. */
  readonly messages: readonly ScanMessage[];
  /** The player's current input: the newest message of the scan. */
  readonly input: string;
  readonly settings?: WorldInfoSettingsInput;
  /** The state returned by the previous activation in this chat (timed effects). */
  readonly state?: WorldInfoState;
  /** Seed for probability rolls and group draws; the same seed gives the same result (default 0). */
  readonly seed?: string | number;
  /** Speaker names for `includeNames` and for `{{user}}`/`{{char}}` in keys and content. */
  readonly names?: { readonly user?: string; readonly char?: string };
  /** Macro substitution applied to keys and content (ST `substituteParams`); default `{{user}}`/`{{char}}` only. */
  readonly substitute?: (text: string) => string;
  /** Token counter for the budget (default `estimateTokens`). */
  readonly countTokens?: (text: string) => number;
  /** The generation type, for entries with `triggers` (default `normal`). */
  readonly trigger?: GenerationTrigger;
  /**
   * The chat's card and persona fields, for entries that match them too (`matchSources`); macros
   * in them are substituted like keys (ST scans the card fields with the names put in).
   */
  readonly scanData?: WorldInfoScanData;
}

const EntrySchema = z.looseObject({
  uid: z.string(),
  comment: z.string(),
  content: z.string(),
  keys: z.array(z.string()),
  secondaryKeys: z.array(z.string()),
  selective: z.boolean(),
  selectiveLogic: z.enum(['andAny', 'notAll', 'notAny', 'andAll']),
  constant: z.boolean(),
  disabled: z.boolean(),
  order: z.number(),
  position: z.enum(['before', 'after', 'authorsNoteTop', 'authorsNoteBottom', 'examplesTop', 'examplesBottom', 'atDepth', 'outlet']),
  outletName: z.string().optional(),
  depth: z.number().int().min(0),
  role: z.enum(['system', 'user', 'assistant']),
  excludeRecursion: z.boolean(),
  preventRecursion: z.boolean(),
  delayUntilRecursion: z.number().int().min(0),
  probability: z.number().min(0).max(100),
  useProbability: z.boolean(),
  groups: z.array(z.string()),
  groupOverride: z.boolean(),
  groupWeight: z.number().min(0),
  useGroupScoring: z.boolean().nullable(),
  scanDepth: z.number().int().min(0).nullable(),
  caseSensitive: z.boolean().nullable(),
  matchWholeWords: z.boolean().nullable(),
  sticky: z.number().int().min(0),
  cooldown: z.number().int().min(0),
  delay: z.number().int().min(0),
  decorators: z.array(z.string()),
  ignoreBudget: z.boolean().optional(),
  triggers: z.array(z.string()).optional(),
  matchSources: z.array(z.enum(SCAN_SOURCES)).optional(),
});

/** A book's outer shape (its entries are checked with {@link EntriesSchema}). */
export const BookShellSchema = z.looseObject({ name: z.string().min(1).max(256), scope: z.enum(['chat', 'character', 'global']).optional(), entries: z.array(z.unknown()).max(10_000) });
/** Schema of a book's entry list (exported for the package's tests). */
export const EntriesSchema = z.array(EntrySchema);

// Entry lists already validated. Only deeply frozen lists are remembered (the importers freeze
// what they return), so a list that could have changed since is validated again.
const validatedEntries = new WeakSet<readonly unknown[]>();

function isDeeplyFrozen(entries: readonly unknown[]): boolean {
  if (!Object.isFrozen(entries)) return false;
  for (const entry of entries as readonly Record<string, unknown>[]) {
    if (!Object.isFrozen(entry)) return false;
    for (const field of ['keys', 'secondaryKeys', 'groups', 'decorators']) if (!Object.isFrozen(entry[field])) return false;
    for (const field of ['triggers', 'matchSources']) if (entry[field] !== undefined && !Object.isFrozen(entry[field])) return false;
  }
  return true;
}

function entryIssues(books: readonly { entries: readonly unknown[] }[]): { path: PropertyKey[]; message: string }[] {
  const issues: { path: PropertyKey[]; message: string }[] = [];
  books.forEach((book, index) => {
    if (validatedEntries.has(book.entries)) return;
    const parsed = EntriesSchema.safeParse(book.entries);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) issues.push({ path: ['books', index, 'entries', ...issue.path], message: issue.message });
      return;
    }
    if (isDeeplyFrozen(book.entries)) validatedEntries.add(book.entries);
  });
  return issues;
}

/** Schema of a whole activation input (exported for the package's tests). */
export const InputSchema = z.object({
  books: z.array(BookShellSchema).max(100),
  messages: z.array(z.looseObject({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string(), name: z.string().optional() })),
  input: z.string(),
  settings: WorldInfoSettingsSchema.optional(),
  state: z.unknown().optional(),
  seed: z.union([z.string(), z.number()]).optional(),
  names: z.object({ user: z.string().optional(), char: z.string().optional() }).optional(),
  trigger: z.enum(GENERATION_TRIGGERS).optional(),
  scanData: ScanDataSchema.optional(),
});

/** The validated input with defaults applied. */
export interface CheckedInput {
  readonly settings: WorldInfoSettings;
  readonly state: WorldInfoState;
}

/**
 * Validates an activation's input at the boundary (zod). A malformed stored state is not an
 * error: like ST, bad effects are dropped and the rest kept.
 * @param input - the caller's input
 * @returns settings with defaults and the state
 * @throws {LorebookError} LOREBOOK_INPUT_INVALID, LOREBOOK_DUPLICATE_BOOK
 */
export function checkActivationInput(input: ActivateWorldInfoInput): CheckedInput {
  const parsed = InputSchema.safeParse(input);
  const issues = parsed.success ? entryIssues(input.books) : parsed.error.issues;
  if (!parsed.success || issues.length > 0) {
    const described = describeZodIssues(issues);
    throw new LorebookError('LOREBOOK_INPUT_INVALID', `Invalid world-info activation input: ${described.summary}`, { issues: described.issues });
  }
  assertUniqueNames(input.books);
  const state = WorldInfoStateSchema.safeParse(input.state ?? EMPTY_STATE);
  return { settings: parsed.data.settings ?? WorldInfoSettingsSchema.parse({}), state: state.success ? state.data : EMPTY_STATE };
}

function assertUniqueNames(books: readonly { readonly name: string }[]): void {
  const names = new Set<string>();
  for (const book of books) {
    if (names.has(book.name)) throw new LorebookError('LOREBOOK_DUPLICATE_BOOK', `Two books are named "${book.name}"; entry ids (<book>.<uid>) would clash`);
    names.add(book.name);
  }
}

const TurnBooksSchema = z.object({
  books: z.array(BookShellSchema).max(100),
  names: z.object({ user: z.string().optional(), char: z.string().optional() }).optional(),
  greeting: z.string().max(1_000_000).optional(),
  scanData: ScanDataSchema.optional(),
});

/**
 * What is wrong with a list of books (their shapes and entries), as zod-style issues; empty when
 * they are fine. The plugin runs it on its own books at boot (in its config schema).
 * @param books - the books
 * @returns the issues, paths starting at the list
 */
export function bookIssues(books: readonly unknown[]): { path: PropertyKey[]; message: string }[] {
  const parsed = z.array(BookShellSchema).max(100).safeParse(books);
  if (!parsed.success) return parsed.error.issues.map((issue) => ({ path: issue.path, message: issue.message }));
  return entryIssues(books as readonly Lorebook[]).map((issue) => ({ path: issue.path.slice(1), message: issue.message }));
}

/**
 * Checks the books (and names, greeting and scan data) a turn's book source returned, like {@link checkActivationInput}
 * checks a whole input: the plugin's turn path checks only these, its options were checked at boot.
 * @throws {LorebookError} LOREBOOK_INPUT_INVALID, LOREBOOK_DUPLICATE_BOOK
 */
export function checkTurnBooks(books: readonly Lorebook[], names: unknown, greeting?: unknown, scanData?: unknown): void {
  const parsed = TurnBooksSchema.safeParse({ books, ...(names === undefined ? {} : { names }), ...(greeting === undefined ? {} : { greeting }), ...(scanData === undefined ? {} : { scanData }) });
  const issues = parsed.success ? entryIssues(books) : parsed.error.issues;
  if (!parsed.success || issues.length > 0) {
    const described = describeZodIssues(issues);
    throw new LorebookError('LOREBOOK_INPUT_INVALID', `Invalid world-info books: ${described.summary}`, { issues: described.issues });
  }
  assertUniqueNames(books);
}
