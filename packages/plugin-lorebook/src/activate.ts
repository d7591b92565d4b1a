import type { ActivatedWorldInfoEntry, WorldInfoPosition } from '@troupe/kernel';
import { type ActivateWorldInfoInput, type CheckedInput, checkActivationInput } from './activation-input.js';
import type { Candidate } from './candidate.js';
import type { Lorebook, WorldInfoEntry } from './entry.js';
import { type GroupLoss, filterInclusionGroups } from './inclusion-groups.js';
import { keyScore, matchEntryKeys } from './key-logic.js';
import { ScanBuffer } from './scan-buffer.js';
import { SCAN_SOURCES, type WorldInfoScanData, inScanOrder } from './scan-sources.js';
import { seededRandom } from './seeded-random.js';
import { type WorldInfoSettings, worldInfoBudget } from './settings.js';
import { TimedEffects, type WorldInfoState } from './timed-effects.js';
import { estimateTokens } from './token-estimate.js';

/**
 * Why an entry activated: its keys matched, it is constant, a sticky effect holds it, or an
 * `@@activate` decorator forces it.
 */
export type ActivationReason = 'key' | 'constant' | 'sticky' | 'decorator';

/** One activated entry: what to place, and why it fired. */
export interface ActivatedEntry extends ActivatedWorldInfoEntry {
  readonly reason: ActivationReason;
  /** The primary key that matched (reason `key`). */
  readonly key?: string;
  /** The secondary key that decided it, when one did. */
  readonly secondaryKey?: string;
  /** Activated in a recursive pass (by other entries' content). */
  readonly recursion: boolean;
  /** Scan pass (1 = the chat). */
  readonly pass: number;
  /** Tokens it took from the budget. */
  readonly tokens: number;
}

/** Why a matching entry was not inserted. */
export type RejectionReason = 'probability' | 'budget' | GroupLoss;

/** A matching entry that did not make it into the prompt. */
export interface RejectedEntry {
  readonly id: string;
  readonly reason: RejectionReason;
}

/** Activated entries by position, each list in placement order. */
export type WorldInfoByPosition = Readonly<Record<WorldInfoPosition, readonly ActivatedEntry[]>>;

/** What {@link activateWorldInfo} returns. */
export interface WorldInfoActivation {
  /** Every activated entry, in placement order (by position, lower `order` first). */
  readonly entries: readonly ActivatedEntry[];
  readonly byPosition: WorldInfoByPosition;
  /** The state to pass to the next activation in this chat. */
  readonly state: WorldInfoState;
  /** Entries that matched but lost (probability, inclusion group, budget). */
  readonly rejected: readonly RejectedEntry[];
  readonly budget: { readonly limit: number; readonly used: number; readonly exhausted: boolean };
}

const POSITIONS: readonly WorldInfoPosition[] = ['before', 'after', 'authorsNoteTop', 'authorsNoteBottom', 'examplesTop', 'examplesBottom', 'atDepth', 'outlet'];

interface Substitution {
  readonly apply: (text: string) => string;
  /** Identifies the substitution for caching prepared keys; undefined when it cannot be cached. */
  readonly tag: string | undefined;
}

function defaultSubstitute(names: ActivateWorldInfoInput['names']): Substitution {
  const user = names?.user;
  const char = names?.char;
  if (user === undefined && char === undefined) return { apply: (text) => text, tag: '' };
  return {
    apply: (text) => {
      if (!text.includes('{{')) return text;
      let out = text;
      if (user !== undefined) out = out.replace(/\{\{user\}\}/gi, user);
      if (char !== undefined) out = out.replace(/\{\{char\}\}/gi, char);
      return out;
    },
    tag: `${user ?? ''}\u0000${char ?? ''}`,
  };
}

// Keys after substitution, per entry and names: a book is scanned every turn with the same names.
const preparedKeys = new WeakMap<WorldInfoEntry, { tag: string; keys: readonly string[]; secondaryKeys: readonly string[] }>();

function keysOf(entry: WorldInfoEntry, substitution: Substitution): { keys: readonly string[]; secondaryKeys: readonly string[] } {
  const { tag } = substitution;
  const cached = tag === undefined ? undefined : preparedKeys.get(entry);
  if (cached !== undefined && cached.tag === tag) return cached;
  const prepare = (keys: readonly string[]) => keys.map((key) => substitution.apply(key).trim()).filter((key) => key !== '');
  const prepared = { tag: tag ?? '', keys: prepare(entry.keys), secondaryKeys: prepare(entry.secondaryKeys) };
  if (tag !== undefined) preparedKeys.set(entry, prepared);
  return prepared;
}

// ST's getSortedEntries: chat lore first, then character and global lore by the strategy, each
// group by descending order (stable, so a book's own entry order breaks ties).
function sortCandidates(books: readonly Lorebook[], settings: WorldInfoSettings, substitution: Substitution): Candidate[] {
  type Item = { readonly book: Lorebook; readonly entry: WorldInfoEntry };
  const byOrder = (list: Item[]) => list.sort((a, b) => b.entry.order - a.entry.order);
  const collect = (scope: 'chat' | 'character' | 'global'): Item[] => {
    const items: Item[] = [];
    for (const book of books) if ((book.scope ?? 'global') === scope) for (const entry of book.entries) items.push({ book, entry });
    return items;
  };
  const chat = byOrder(collect('chat'));
  const character = collect('character');
  const global = collect('global');
  let rest: Item[];
  if (settings.insertionStrategy === 'evenly') rest = byOrder([...global, ...character]);
  else if (settings.insertionStrategy === 'globalFirst') rest = [...byOrder(global), ...byOrder(character)];
  else rest = [...byOrder(character), ...byOrder(global)];
  return [...chat, ...rest].map(({ book, entry }, rank) => {
    const { keys, secondaryKeys } = keysOf(entry, substitution);
    return {
      id: `${book.name}.${entry.uid}`,
      book,
      entry,
      rank,
      keys,
      secondaryKeys,
      options: { caseSensitive: entry.caseSensitive ?? settings.caseSensitive, matchWholeWords: entry.matchWholeWords ?? settings.matchWholeWords },
      scanDepth: entry.scanDepth ?? settings.scanDepth,
      sources: inScanOrder(entry.matchSources),
    };
  });
}

function scanTexts(input: ActivateWorldInfoInput, settings: WorldInfoSettings): string[] {
  const nameFor = (role: string, name: string | undefined): string | undefined => name ?? (role === 'user' ? input.names?.user : role === 'assistant' ? input.names?.char : undefined);
  const line = (role: string, content: string, name: string | undefined): string => {
    const speaker = settings.includeNames ? nameFor(role, name) : undefined;
    return speaker !== undefined && speaker !== '' ? `${speaker}: ${content}` : content;
  };
  const texts = [line('user', input.input, undefined)];
  for (let index = input.messages.length - 1; index >= 0 && texts.length < 1000; index--) {
    const message = input.messages[index]!;
    texts.push(line(message.role, message.content, message.name));
  }
  return texts;
}

// ST scans the card fields with the names put in (getCharacterCardFields runs baseChatReplace).
function substitutedScanData(scanData: WorldInfoScanData | undefined, substitute: (text: string) => string): WorldInfoScanData {
  if (scanData === undefined) return {};
  return Object.fromEntries(SCAN_SOURCES.flatMap((source) => (scanData[source] === undefined || scanData[source] === '' ? [] : [[source, substitute(scanData[source])]])));
}

/**
 * Selects the world-info entries for one turn with SillyTavern's rules (`world-info.js`): primary
 * keys (plain or `/regex/flags`), secondary keys by selective logic, constant and disabled
 * entries, case sensitivity and whole-word matching (per entry or global; ST's ASCII word
 * boundaries), scan depth over the newest messages with the input as the newest, recursive
 * passes (exclude / prevent / delay until recursion), seeded probability, inclusion groups with
 * weights and scoring, the token budget (sticky first, then constant, then by order), and the
 * timed effects sticky, cooldown and delay carried in `state`. Pure: the same input and seed give
 * the same result, and nothing passed in is changed.
 * @param input - books, messages, input, settings, previous state and seed
 * @returns the activated entries (in placement order and by position), the next state, the
 *   rejected matches and the budget used
 * @throws {LorebookError} LOREBOOK_INPUT_INVALID, LOREBOOK_DUPLICATE_BOOK
 */
export function activateWorldInfo(input: ActivateWorldInfoInput): WorldInfoActivation {
  return activateChecked(input, checkActivationInput(input));
}

/**
 * {@link activateWorldInfo} for a caller that checked the input already (the plugin: its books
 * and settings at boot, a book source's books and the stored state per turn, and the kernel's
 * history needs no check).
 * @param input - books, messages, input, seed, names, substitution and token counter
 * @param checked - the settings with defaults and the previous state, both checked
 * @returns what {@link activateWorldInfo} returns
 */
export function activateChecked(input: ActivateWorldInfoInput, checked: CheckedInput): WorldInfoActivation {
  const { settings, state } = checked;
  const substitution: Substitution = input.substitute ? { apply: input.substitute, tag: undefined } : defaultSubstitute(input.names);
  const substitute = substitution.apply;
  const countTokens = input.countTokens ?? estimateTokens;
  const random = seededRandom(input.seed ?? 0);
  const trigger = input.trigger ?? 'normal';
  const candidates = sortCandidates(input.books, settings, substitution);
  const byId = new Map(candidates.map((candidate) => [candidate.id, candidate.entry] as const));
  // The chat's length counts the current input, as ST's chat already holds the user's message.
  const timed = new TimedEffects(state, input.messages.length + 1, byId);
  const buffer = new ScanBuffer(scanTexts(input, settings), substitutedScanData(input.scanData, substitute));
  const limit = worldInfoBudget(settings);

  const activated = new Map<Candidate, ActivatedEntry>();
  const failedProbability = new Set<Candidate>();
  // First reason per entry: a group loser matches again in later passes and loses again.
  const rejections = new Map<string, RejectionReason>();
  const reject = (id: string, reason: RejectionReason): void => {
    if (!rejections.has(id)) rejections.set(id, reason);
  };
  const delayLevels = [...new Set(candidates.map((c) => c.entry.delayUntilRecursion).filter((level) => level > 0))].sort((a, b) => a - b);
  let delayLevel = delayLevels.shift() ?? 0;
  let recursionPass = false;
  let pass = 0;
  let used = 0;
  let exhausted = false;
  const scanOf = (candidate: Candidate) => buffer.get(candidate.scanDepth, candidate.sources);

  for (;;) {
    if (settings.maxRecursionSteps > 0 && pass >= settings.maxRecursionSteps) break;
    pass++;
    const matched: { candidate: Candidate; reason: ActivationReason; key?: string; secondaryKey?: string }[] = [];
    for (const candidate of candidates) {
      if (activated.has(candidate) || failedProbability.has(candidate)) continue;
      const { entry, id } = candidate;
      if (entry.disabled) continue;
      // ST: `if (entry.triggers.length > 0 && !entry.triggers.includes(globalScanData.trigger))`,
      // checked before anything else can activate it (sticky, constant, decorators).
      if (entry.triggers !== undefined && entry.triggers.length > 0 && !entry.triggers.includes(trigger)) continue;
      const sticky = timed.isActive('sticky', id);
      if (timed.isActive('delay', id)) continue;
      if (timed.isActive('cooldown', id) && !sticky) continue;
      if (!sticky && entry.delayUntilRecursion > 0 && (!recursionPass || entry.delayUntilRecursion > delayLevel)) continue;
      if (!sticky && recursionPass && settings.recursive && entry.excludeRecursion) continue;
      if (entry.decorators.includes('@@activate')) {
        matched.push({ candidate, reason: 'decorator' });
        continue;
      }
      if (entry.decorators.includes('@@dont_activate')) continue;
      if (entry.constant) {
        matched.push({ candidate, reason: 'constant' });
        continue;
      }
      if (sticky) {
        matched.push({ candidate, reason: 'sticky' });
        continue;
      }
      if (candidate.keys.length === 0) continue;
      const match = matchEntryKeys(candidate, scanOf(candidate), candidate.options);
      if (match) matched.push({ candidate, reason: 'key', ...match });
    }

    // Budget priority: sticky entries, then constant ones, then the scan order (higher order first).
    const isSticky = (candidate: Candidate) => timed.isActive('sticky', candidate.id);
    matched.sort((a, b) => Number(isSticky(b.candidate)) - Number(isSticky(a.candidate)) || Number(b.candidate.entry.constant) - Number(a.candidate.entry.constant) || a.candidate.rank - b.candidate.rank);
    const activatedGroups = new Set([...activated.keys()].flatMap((candidate) => candidate.entry.groups));
    const { kept, lost } = filterInclusionGroups(
      matched.map((item) => item.candidate),
      {
        isSticky,
        score: (candidate) => keyScore(candidate, scanOf(candidate), candidate.options),
        groupTaken: (group) => activatedGroups.has(group),
        useGroupScoring: settings.useGroupScoring,
        random,
      },
    );
    for (const [candidate, why] of lost) reject(candidate.id, why);
    const keptSet = new Set(kept);

    const newlyActivated: Candidate[] = [];
    for (const item of matched) {
      const { candidate } = item;
      if (!keptSet.has(candidate)) continue;
      const { entry } = candidate;
      // ST tries nothing more once the budget is exhausted but the entries that ignore it; the
      // others matched and lost (ST: `if (token_budget_overflowed && !entry.ignoreBudget)`).
      if (exhausted && entry.ignoreBudget !== true) {
        reject(candidate.id, 'budget');
        continue;
      }
      if (entry.useProbability && entry.probability < 100 && !isSticky(candidate) && !(random() * 100 <= entry.probability)) {
        failedProbability.add(candidate);
        reject(candidate.id, 'probability');
        continue;
      }
      const content = substitute(entry.content);
      const tokens = countTokens(`${content}\n`);
      // ST stops at the first entry that would reach the budget; later entries are not tried. An
      // entry that ignores the budget is never checked, but ST adds its content to the pass's text
      // before the next check (`newContent += …; if (!entry.ignoreBudget && … >= budget)`), so
      // its tokens count for the entries after it.
      if (entry.ignoreBudget !== true && used + tokens >= limit) {
        exhausted = true;
        reject(candidate.id, 'budget');
        continue;
      }
      used += tokens;
      newlyActivated.push(candidate);
      activated.set(candidate, {
        id: candidate.id,
        book: candidate.book.name,
        uid: entry.uid,
        comment: entry.comment,
        content,
        position: entry.position,
        order: entry.order,
        depth: entry.depth,
        role: entry.role,
        ...(entry.position === 'outlet' ? { outletName: entry.outletName ?? '' } : {}),
        reason: item.reason,
        ...(item.key !== undefined ? { key: item.key } : {}),
        ...(item.secondaryKey !== undefined ? { secondaryKey: item.secondaryKey } : {}),
        recursion: recursionPass,
        pass,
        tokens,
      });
    }
    const forRecursion = newlyActivated.filter((candidate) => !candidate.entry.preventRecursion);
    // ST: an exhausted budget ends recursion, but open delay-until-recursion levels are still
    // scanned (`nextScanState === NONE && availableRecursionDelayLevels.length`); their matches
    // meet the exhausted budget above.
    let next = settings.recursive && !exhausted && forRecursion.length > 0;
    if (!next && delayLevels.length > 0) {
      next = true;
      delayLevel = delayLevels.shift() ?? delayLevel;
    }
    if (!next) break;
    recursionPass = true;
    buffer.addRecursion(forRecursion.map((candidate) => activated.get(candidate)?.content ?? '').join('\n'));
  }

  // The budget took constant entries first (a deliberate difference); placement follows ST's
  // activation order instead: pass by pass, sticky entries first, then the scan order.
  const isStickyNow = (candidate: Candidate) => timed.isActive('sticky', candidate.id);
  const inActivationOrder = [...activated.entries()]
    .sort(([a, first], [b, second]) => first.pass - second.pass || Number(isStickyNow(b)) - Number(isStickyNow(a)) || a.rank - b.rank)
    .map(([, entry]) => entry);
  const entries = placementOrder(inActivationOrder);
  const byPosition = Object.fromEntries(POSITIONS.map((position) => [position, entries.filter((entry) => entry.position === position)])) as unknown as WorldInfoByPosition;
  const activatedById = new Map([...activated.keys()].map((candidate) => [candidate.id, candidate.entry] as const));
  const rejected = [...rejections].filter(([id]) => !activatedById.has(id)).map(([id, reason]) => ({ id, reason }));
  return { entries, byPosition, state: timed.finish(activatedById), rejected, budget: { limit, used, exhausted } };
}

// ST builds each position by walking the activated entries by descending order and prepending,
// so a position reads in ascending order and, among equal orders, in reverse activation order.
function placementOrder(entries: readonly ActivatedEntry[]): ActivatedEntry[] {
  return [...entries].sort((a, b) => b.order - a.order).reverse();
}
