// Deterministic randomness for `{{random}}`, `{{pick}}` and `{{roll}}`: a seeded generator, so a
// test or a replay of a turn sees exactly the same choices.

/**
 * SillyTavern's string hash (Java-style, 32-bit), used to seed `{{pick}}`.
 * @param text - any text
 * @returns a 32-bit integer
 */
export function stringHash(text: string): number {
  let hash = 0;
  for (let index = 0; index < text.length; index++) hash = (Math.imul(31, hash) + text.charCodeAt(index)) | 0;
  return hash;
}

/**
 * A small, fast seeded generator (mulberry32 over a hash of the seed text).
 * @param seed - any text
 * @returns a function returning numbers in [0, 1)
 */
export function seededRandom(seed: string): () => number {
  let state = stringHash(seed) ^ 0x9e3779b9;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DICE = /^\s*(\d*)\s*d\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$/i;
/** Most dice one roll may throw (a formula from a file must not spin the CPU). */
export const MAX_DICE = 1000;

/**
 * Rolls a dice formula in droll syntax (`2d6+3`, `d20`, a bare `6` means `1d6`).
 * @param formula - the formula
 * @param random - random stream
 * @returns the total, or undefined for an invalid formula
 */
export function rollDice(formula: string, random: () => number): number | undefined {
  const text = /^\s*\d+\s*$/.test(formula) ? `1d${formula.trim()}` : formula;
  const match = DICE.exec(text);
  if (match === null) return undefined;
  const count = match[1] === '' ? 1 : Number(match[1]);
  const sides = Number(match[2]);
  if (count < 1 || sides < 1 || count > MAX_DICE || !Number.isSafeInteger(sides)) return undefined;
  let total = 0;
  for (let index = 0; index < count; index++) total += 1 + Math.floor(random() * sides);
  const modifier = match[4] === undefined ? 0 : Number(match[4]);
  return match[3] === '-' ? total - modifier : total + modifier;
}

/**
 * Splits a one-argument list the legacy way: on `::` when present, else on unescaped commas.
 * @param text - `a, b, c` or `a::b`
 * @returns the items, trimmed
 */
export function splitLegacyList(text: string): string[] {
  if (text.includes('::')) return text.split('::').map((item) => item.trim());
  return text
    .replace(/\\,/g, '\u0000')
    .split(',')
    .map((item) => item.trim().replaceAll('\u0000', ','));
}
