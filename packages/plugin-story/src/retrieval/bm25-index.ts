import { ownString } from './own-string.js';

/** How one index splits and normalises text (the same functions for documents and queries). */
export interface Bm25Analyzer {
  /** Splits text into raw terms. */
  readonly tokenize: (text: string) => string[];
  /** Normalises one raw term; an empty result drops it. */
  readonly processTerm: (term: string) => string;
  /**
   * A query's normalised terms with their occurrences (`tokenize` then `processTerm`, empty terms
   * dropped), when the analyzer can give them cheaper (e.g. remembered); else they are computed.
   */
  readonly queryTerms?: (query: string) => ReadonlyMap<string, number>;
}

/** One search hit: the document's key and its score. */
export interface Bm25Hit {
  readonly key: string;
  readonly slot: number;
  readonly score: number;
}

// One term's occurrences in one field: parallel arrays of document slots and term frequencies.
interface Postings {
  readonly slots: number[];
  readonly freqs: number[];
}

// BM25+ parameters of MiniSearch 7 (k1, b, delta), so scores match what the index used before.
const K = 1.2;
const B = 0.7;
const D = 0.5;
// Removed documents stay in the postings (skipped) until they are this share of all slots.
const COMPACT_DEAD_SHARE = 0.3;

/**
 * A plain inverted index with BM25+ scoring over documents of a fixed list of fields, each with a
 * boost. Scores are those of MiniSearch 7 with `combineWith: 'OR'` (per query-term occurrence and
 * field: boost × BM25+, summed, then multiplied by the number of distinct query terms that
 * matched; field length = distinct raw terms), but a query walks each distinct term's postings
 * once into a flat score array instead of building one result map per query term, so a long query
 * (the recent conversation plus the input) costs milliseconds at 10 MB. Documents are added and
 * removed one at a time, so an index grows incrementally.
 */
export class Bm25Index {
  readonly #boosts: readonly number[];
  readonly #analyzer: Bm25Analyzer;
  readonly #postings = new Map<string, (Postings | undefined)[]>();
  readonly #slotByKey = new Map<string, number>();
  #keys: (string | undefined)[] = [];
  #lengths: number[][];
  #lengthSums: number[];
  #live = 0;
  #scores: { scores: Float64Array; matched: Uint16Array; lastTerm: Int32Array } | undefined;

  /**
   * @param boosts - one boost per field, in the order `add` receives the fields
   * @param analyzer - the tokenizer and term normaliser
   */
  constructor(boosts: readonly number[], analyzer: Bm25Analyzer) {
    this.#boosts = boosts;
    this.#analyzer = analyzer;
    this.#lengths = boosts.map(() => []);
    this.#lengthSums = boosts.map(() => 0);
  }

  /** Documents currently searchable. */
  get size(): number {
    return this.#live;
  }

  /**
   * Adds (or replaces) a document.
   * @param key - the document's unique key
   * @param fields - its field texts, in the order of the constructor's boosts
   */
  add(key: string, fields: readonly string[]): void {
    if (this.#slotByKey.has(key)) this.remove(key);
    const slot = this.#keys.length;
    this.#keys.push(key);
    this.#slotByKey.set(key, slot);
    this.#live += 1;
    for (let field = 0; field < this.#boosts.length; field++) {
      const raw = this.#analyzer.tokenize(fields[field] ?? '');
      const length = new Set(raw).size;
      this.#lengths[field]![slot] = length;
      this.#lengthSums[field]! += length;
      const counts = new Map<string, number>();
      for (const term of raw) {
        const processed = this.#analyzer.processTerm(term);
        if (processed) counts.set(processed, (counts.get(processed) ?? 0) + 1);
      }
      for (const [term, freq] of counts) {
        let byField = this.#postings.get(term);
        if (!byField) {
          byField = [];
          // A term is a substring of the document: keep a copy, never a view into the document.
          this.#postings.set(ownString(term), byField);
        }
        let postings = byField[field];
        if (!postings) {
          postings = { slots: [], freqs: [] };
          byField[field] = postings;
        }
        postings.slots.push(slot);
        postings.freqs.push(freq);
      }
    }
  }

  /**
   * Removes a document (a missing key is ignored).
   * @param key - the document's key
   */
  remove(key: string): void {
    const slot = this.#slotByKey.get(key);
    if (slot === undefined) return;
    this.#slotByKey.delete(key);
    this.#keys[slot] = undefined;
    this.#live -= 1;
    for (let field = 0; field < this.#boosts.length; field++) this.#lengthSums[field]! -= this.#lengths[field]![slot] ?? 0;
    const dead = this.#keys.length - this.#live;
    if (dead > 64 && dead > this.#keys.length * COMPACT_DEAD_SHARE) this.#compact();
  }

  /**
   * Scores every document that shares a term with `query`.
   * @param query - any text
   * @param limit - most hits returned (the best ones)
   * @param accept - optional filter on a hit's slot (e.g. only older parts of a document)
   * @returns hits by descending score; ties keep insertion order
   */
  search(query: string, limit: number, accept?: (key: string) => boolean): Bm25Hit[] {
    if (this.#live === 0 || limit <= 0) return [];
    const multiplicity = this.#analyzer.queryTerms?.(query) ?? this.#countTerms(query);
    const { scores, matched, lastTerm } = this.#scratch(this.#keys.length);
    const touched: number[] = [];
    const keys = this.#keys;
    let termNo = 0;
    for (const [term, times] of multiplicity) {
      const byField = this.#postings.get(term);
      termNo += 1;
      if (!byField) continue;
      for (let field = 0; field < byField.length; field++) {
        const postings = byField[field];
        if (!postings) continue;
        // Without removed documents every posting is live: no pass to count them.
        let matching = this.#live === keys.length ? postings.slots.length : 0;
        if (matching === 0) for (const slot of postings.slots) if (keys[slot] !== undefined) matching += 1;
        if (matching === 0) continue;
        const idf = Math.log(1 + (this.#live - matching + 0.5) / (matching + 0.5));
        const average = this.#lengthSums[field]! / this.#live;
        const weight = times * this.#boosts[field]! * idf;
        const lengths = this.#lengths[field]!;
        const { slots: docSlots, freqs } = postings;
        for (let i = 0; i < docSlots.length; i++) {
          const slot = docSlots[i]!;
          if (keys[slot] === undefined) continue;
          const freq = freqs[i]!;
          scores[slot]! += weight * (D + (freq * (K + 1)) / (freq + K * (1 - B + (B * lengths[slot]!) / average)));
          if (lastTerm[slot] !== termNo) {
            if (lastTerm[slot] === -1) touched.push(slot);
            lastTerm[slot] = termNo;
            matched[slot]! += 1;
          }
        }
      }
    }
    // Keep the best `limit` in a small sorted array (a query can touch every document).
    const best: Bm25Hit[] = [];
    for (const slot of touched) {
      const score = scores[slot]! * matched[slot]!;
      // Leave the scratch arrays clean for the next query (only what this one touched).
      scores[slot] = 0;
      matched[slot] = 0;
      lastTerm[slot] = -1;
      if (best.length >= limit && score <= best[best.length - 1]!.score) continue;
      const key = keys[slot]!;
      if (accept && !accept(key)) continue;
      let at = best.length;
      while (at > 0 && (best[at - 1]!.score < score || (best[at - 1]!.score === score && best[at - 1]!.slot > slot))) at--;
      best.splice(at, 0, { key, slot, score });
      if (best.length > limit) best.pop();
    }
    return best;
  }

  #countTerms(query: string): Map<string, number> {
    const terms = new Map<string, number>();
    for (const raw of this.#analyzer.tokenize(query)) {
      const term = this.#analyzer.processTerm(raw);
      if (term) terms.set(term, (terms.get(term) ?? 0) + 1);
    }
    return terms;
  }

  // Per-slot score arrays kept between queries (zero outside a query), grown as the index grows,
  // so a query costs the postings it walks, not an allocation of every slot.
  #scratch(slots: number): { scores: Float64Array; matched: Uint16Array; lastTerm: Int32Array } {
    if (!this.#scores || this.#scores.scores.length < slots) {
      const size = Math.max(slots, 2 * (this.#scores?.scores.length ?? 32));
      this.#scores = { scores: new Float64Array(size), matched: new Uint16Array(size), lastTerm: new Int32Array(size).fill(-1) };
    }
    return this.#scores;
  }

  // Drops removed documents from every postings list and renumbers the slots.
  #compact(): void {
    const renumber = new Int32Array(this.#keys.length).fill(-1);
    const keys: string[] = [];
    const lengths = this.#boosts.map(() => [] as number[]);
    this.#keys.forEach((key, slot) => {
      if (key === undefined) return;
      renumber[slot] = keys.length;
      this.#slotByKey.set(key, keys.length);
      for (let field = 0; field < lengths.length; field++) lengths[field]!.push(this.#lengths[field]![slot] ?? 0);
      keys.push(key);
    });
    for (const [term, byField] of this.#postings) {
      let any = false;
      for (let field = 0; field < byField.length; field++) {
        const postings = byField[field];
        if (!postings) continue;
        const slots: number[] = [];
        const freqs: number[] = [];
        for (let i = 0; i < postings.slots.length; i++) {
          const next = renumber[postings.slots[i]!]!;
          if (next >= 0) {
            slots.push(next);
            freqs.push(postings.freqs[i]!);
          }
        }
        byField[field] = slots.length > 0 ? { slots, freqs } : undefined;
        any ||= slots.length > 0;
      }
      if (!any) this.#postings.delete(term);
    }
    this.#keys = keys;
    this.#lengths = lengths;
  }
}
