import { sha256Hex } from '@troupe/kernel/util';

/**
 * The compiled prompts this process's lookups applied lately, by SHA-256. The session log records
 * only a prompt's hash (never its text); a regeneration of the turn that stated a requirement must
 * play the prompt that was active *before* it, which the service no longer serves once the new one
 * is compiled — this is where its text is found again (verified by the hash). Bounded: the least
 * recently used prompts go first.
 */
export class RecentPrompts {
  readonly #byHash = new Map<string, string>();
  readonly #max: number;

  /** @param max - prompts kept (default 64: at most 6.4 M characters at the 100 000-character cap) */
  constructor(max = 64) {
    this.#max = max;
  }

  /**
   * Remembers an applied prompt.
   * @param sha256 - its verified hash (lower-case hex)
   * @param text - the prompt
   */
  remember(sha256: string, text: string): void {
    this.#byHash.delete(sha256);
    this.#byHash.set(sha256, text);
    if (this.#byHash.size > this.#max) this.#byHash.delete(this.#byHash.keys().next().value as string);
  }

  /**
   * The prompt with this hash, if this process applied it lately (checked again against the hash).
   * @param sha256 - the hash a session event recorded
   * @returns the text, or `undefined`
   */
  find(sha256: string): string | undefined {
    const text = this.#byHash.get(sha256);
    return text !== undefined && sha256Hex(text) === sha256 ? text : undefined;
  }
}
