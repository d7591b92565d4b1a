/**
 * Deterministic hashing and pseudo-randomness. The offline model must give the same output for
 * the same input, so nothing here reads the time or `Math.random`.
 */

/**
 * FNV-1a over the UTF-16 code units of `text`.
 * @param text - any string
 * @param seed - mixes a caller seed into the hash (default 0)
 * @returns an unsigned 32-bit hash
 */
export function hashText(text: string, seed = 0): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * A small seeded generator (mulberry32) returning numbers in [0, 1).
 * @param seed - 32-bit seed
 * @returns a function producing the next number of the sequence
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
