import type { Tokenizer } from '../ports/chat-model.js';

/**
 * Counts tokens without a vocabulary, for models whose tokenizer no pure-JS BPE matches (Qwen,
 * Mistral, Gemma, DeepSeek, …). Chinese-aware: a Han, kana or Hangul character is about one
 * token in the common vocabularies (Qwen ≈ 0.7, GPT-4o ≈ 0.9, cl100k and Llama 3 ≈ 1.4), so it
 * counts 1.3; a Latin word one token per 6 letters (at least 1); other alphabets (accented Latin,
 * Cyrillic, Greek) one per 3 letters; a digit run one per 3 digits; a run of newlines 1; other
 * symbols 1 and astral ones (emoji) 2. Spaces are free (BPE vocabularies fold a leading space
 * into the word). It errs high on purpose; the kernel calibrates it with the `usage.inputTokens`
 * a server reports. One pass over the UTF-16 code units, no regular expression.
 */
export const estimateTokenizer: EstimateTokenizer = Object.freeze({
  id: 'estimate',
  exact: false,
  count: estimateTokens,
  maxTokensPerChar: 1.3,
});

/** The estimate's {@link Tokenizer}, with the most it ever counts per UTF-16 code unit. */
export interface EstimateTokenizer extends Tokenizer {
  /**
   * No text of `n` code units counts more than `Math.ceil(n * maxTokensPerChar)` (a Han
   * character is the costliest unit), so a caller that only needs to know that a prompt fits a
   * budget can skip counting a prompt that is short enough.
   */
  readonly maxTokensPerChar: number;
}

// Han characters cost 0.7 (Qwen) to 1.4 (cl100k, Llama 3) tokens; erring high keeps the first,
// uncalibrated turn inside the window on the costlier vocabularies. Every other code unit counts
// at most 1 (a symbol, a one-letter word, half an emoji), so this is `maxTokensPerChar` too.
const CJK_WEIGHT = 1.3;

/**
 * The estimate of {@link estimateTokenizer}.
 * @param text - any text
 * @returns the estimated number of tokens
 */
export function estimateTokens(text: string): number {
  let total = 0;
  let letters = 0; // weighted: a Latin letter 1, another alphabet's letter 2
  let digits = 0;
  let newline = false;
  const flush = () => {
    if (letters > 0) total += Math.max(1, Math.ceil(letters / 6));
    if (digits > 0) total += Math.ceil(digits / 3);
    letters = 0;
    digits = 0;
  };
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) {
        if (digits > 0) flush();
        letters++;
        newline = false;
        continue;
      }
      if (code >= 0x30 && code <= 0x39) {
        if (letters > 0) flush();
        digits++;
        newline = false;
        continue;
      }
      flush();
      if (code === 0x0a) {
        if (!newline) total += 1;
        newline = true;
      } else if (code !== 0x20 && code !== 0x09 && code !== 0x0d) {
        total += 1;
        newline = false;
      }
      continue;
    }
    newline = false;
    if (code >= 0xd800 && code <= 0xdbff) {
      // Astral plane: CJK extension B+ characters, emoji.
      const point = text.codePointAt(index) ?? code;
      index++;
      flush();
      total += point >= 0x20000 && point <= 0x3134f ? CJK_WEIGHT : 2;
      continue;
    }
    if (isCjk(code)) {
      flush();
      total += CJK_WEIGHT;
      continue;
    }
    if (code >= 0x00c0 && code < 0x2000 && code !== 0x00d7 && code !== 0x00f7) {
      if (digits > 0) flush();
      letters += 2;
      continue;
    }
    flush();
    total += 1;
  }
  flush();
  return Math.ceil(total);
}

function isCjk(code: number): boolean {
  return (
    (code >= 0x3040 && code <= 0x30ff) || // kana
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xac00 && code <= 0xd7af) || // Hangul syllables
    (code >= 0xf900 && code <= 0xfaff)
  );
}
