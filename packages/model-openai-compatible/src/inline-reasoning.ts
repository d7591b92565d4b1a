const OPEN = '<think>';
const CLOSE = '</think>';

/** Text and reasoning split out of one piece of content. */
export interface ReasoningSplit {
  /** Visible answer text. */
  readonly text: string;
  /** Reasoning text. */
  readonly reasoning: string;
}

/**
 * Splits inline reasoning out of a whole answer. Reasoning models served through a plain chat
 * template (DeepSeek-R1 and its distills, QwQ, Qwen3 on servers without a reasoning parser) put
 * their thinking in the content as `<think>…</think>` before the answer; templates that open the
 * block in the prompt (DeepSeek-R1's own, Qwen3's with thinking on) leave only the closing tag.
 * @param content - the content as the server sent it
 * @returns the answer (leading whitespace after the block removed) and the reasoning
 */
export function splitInlineReasoning(content: string): ReasoningSplit & { readonly bareClose: boolean } {
  const splitter = new InlineReasoningSplitter(false);
  splitter.push(content);
  splitter.end();
  return { text: splitter.text, reasoning: splitter.reasoning, bareClose: splitter.sawBareClose };
}

/**
 * The streaming form of {@link splitInlineReasoning}: feed content deltas, get visible text and
 * reasoning deltas back. It holds back at most a few characters that may be the start of a tag.
 * A `</think>` arriving without an opening tag means everything before it was reasoning: the text
 * already emitted cannot be taken back, so {@link text} (what the final response carries) is the
 * corrected answer and {@link sawBareClose} tells the caller to start the model's next answers in
 * reasoning (`startsInReasoning`).
 */
export class InlineReasoningSplitter {
  #mode: 'start' | 'reasoning' | 'content' = 'start';
  #pending = '';
  #text = '';
  #reasoning = '';
  /** A think block was opened or closed already: a later `</think>` is plain text. */
  #blockDone = false;
  #trimLeading = false;
  readonly #startsInReasoning: boolean;
  #implicitOpen = false;
  #sawBareClose = false;

  /**
   * @param startsInReasoning - the model's template opens the block in the prompt, so its
   *   output starts inside reasoning (until `</think>`; an answer without one is plain text)
   */
  constructor(startsInReasoning: boolean) {
    this.#startsInReasoning = startsInReasoning;
  }

  /** The visible answer so far (corrected when a bare `</think>` arrived). */
  get text(): string {
    return this.#text;
  }

  /** The reasoning so far. */
  get reasoning(): string {
    return this.#reasoning;
  }

  /** True when the content closed a think block it never opened. */
  get sawBareClose(): boolean {
    return this.#sawBareClose;
  }

  /**
   * Adds a content delta.
   * @param delta - content as streamed
   * @returns the visible text and reasoning this delta released
   */
  push(delta: string): ReasoningSplit {
    this.#pending += delta;
    return this.#drain(false);
  }

  /**
   * Ends the content: releases anything held back.
   * @returns the last visible text and reasoning
   */
  end(): ReasoningSplit {
    const released = this.#drain(true);
    if (this.#mode === 'reasoning' && this.#implicitOpen) {
      // The template opens reasoning, but this answer never closed it: thinking was off, so it
      // was all answer.
      this.#text = this.#reasoning + this.#text;
      this.#reasoning = '';
    }
    return released;
  }

  #drain(final: boolean): ReasoningSplit {
    let text = '';
    let reasoning = '';
    for (;;) {
      if (this.#mode === 'start') {
        const lead = this.#pending.trimStart();
        if (lead.startsWith(OPEN)) {
          this.#mode = 'reasoning';
          this.#pending = lead.slice(OPEN.length);
          continue;
        }
        if (!final && (lead === '' || OPEN.startsWith(lead))) break;
        if (this.#startsInReasoning) {
          this.#mode = 'reasoning';
          this.#implicitOpen = true;
          continue;
        }
        this.#mode = 'content';
        continue;
      }
      if (this.#mode === 'reasoning') {
        const close = this.#pending.indexOf(CLOSE);
        if (close >= 0) {
          reasoning += this.#add('reasoning', this.#pending.slice(0, close));
          this.#pending = this.#pending.slice(close + CLOSE.length);
          this.#mode = 'content';
          this.#blockDone = true;
          this.#implicitOpen = false;
          this.#trimLeading = true;
          continue;
        }
        const keep = final ? 0 : partialSuffix(this.#pending, CLOSE);
        reasoning += this.#add('reasoning', this.#pending.slice(0, this.#pending.length - keep));
        this.#pending = this.#pending.slice(this.#pending.length - keep);
        break;
      }
      // content
      if (this.#trimLeading) {
        this.#pending = this.#pending.trimStart();
        if (this.#pending === '') break;
        this.#trimLeading = false;
      }
      if (!this.#blockDone) {
        const close = this.#pending.indexOf(CLOSE);
        if (close >= 0) {
          // A bare closing tag: what came before (already emitted as text) was reasoning.
          const before = this.#pending.slice(0, close);
          reasoning += before;
          this.#reasoning += this.#text + before;
          this.#text = '';
          this.#pending = this.#pending.slice(close + CLOSE.length);
          this.#blockDone = true;
          this.#sawBareClose = true;
          this.#trimLeading = true;
          continue;
        }
      }
      const keep = final || this.#blockDone ? 0 : partialSuffix(this.#pending, CLOSE);
      text += this.#add('text', this.#pending.slice(0, this.#pending.length - keep));
      this.#pending = this.#pending.slice(this.#pending.length - keep);
      break;
    }
    return { text, reasoning };
  }

  #add(kind: 'text' | 'reasoning', piece: string): string {
    if (kind === 'text') this.#text += piece;
    else this.#reasoning += piece;
    return piece;
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialSuffix(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
