import type { Candidate } from './candidate.js';
import type { MatchOptions } from './match/match-key.js';
import type { ScanText } from './scan-buffer.js';

/** Why keys activated an entry. */
export interface KeyMatch {
  /** The primary key that matched first. */
  readonly key: string;
  /** The secondary key that decided it (AND ANY: the one found; NOT ALL: the one missing). */
  readonly secondaryKey?: string;
}

/**
 * Primary keys, then secondary keys by the entry's selective logic (SillyTavern's rules): without
 * secondary keys (or with `selective` off) a primary match is enough; AND ANY needs one secondary
 * key, AND ALL every one, NOT ANY none, NOT ALL at least one missing.
 * @param candidate - the entry
 * @param scan - the text to scan
 * @param options - case sensitivity and whole-word matching for this entry
 * @returns what matched, or undefined
 */
export function matchEntryKeys(candidate: Candidate, scan: ScanText, options: MatchOptions): KeyMatch | undefined {
  const key = candidate.keys.find((primary) => scan.has(primary, options));
  if (key === undefined) return undefined;
  const secondary = candidate.secondaryKeys;
  if (!candidate.entry.selective || secondary.length === 0) return { key };
  const logic = candidate.entry.selectiveLogic;
  let anyFound = false;
  let allFound = true;
  for (const secondaryKey of secondary) {
    const found = scan.has(secondaryKey, options);
    if (found) anyFound = true;
    else allFound = false;
    if (logic === 'andAny' && found) return { key, secondaryKey };
    if (logic === 'notAll' && !found) return { key, secondaryKey };
  }
  if (logic === 'notAny' && !anyFound) return { key };
  if (logic === 'andAll' && allFound) return { key };
  return undefined;
}

/**
 * SillyTavern's group score: the number of primary keys present, plus the secondary keys present
 * under AND ANY (or under AND ALL when all are present). No primary keys, no score.
 * @param candidate - the entry
 * @param scan - the text to scan
 * @param options - case sensitivity and whole-word matching
 * @returns the score
 */
export function keyScore(candidate: Candidate, scan: ScanText, options: MatchOptions): number {
  if (candidate.keys.length === 0) return 0;
  const primary = candidate.keys.filter((key) => scan.has(key, options)).length;
  const secondaryKeys = candidate.secondaryKeys;
  if (secondaryKeys.length === 0) return primary;
  const secondary = secondaryKeys.filter((key) => scan.has(key, options)).length;
  if (candidate.entry.selectiveLogic === 'andAny') return primary + secondary;
  if (candidate.entry.selectiveLogic === 'andAll') return secondary === secondaryKeys.length ? primary + secondary : primary;
  return primary;
}
