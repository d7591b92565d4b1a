// Characters per token for scripts with spaces: SillyTavern's estimate when no tokenizer is set.
const CHARS_PER_TOKEN = 3.35;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/**
 * Estimates tokens without a tokenizer: a Chinese/Japanese/Korean character is about one token,
 * other text about 3.35 characters per token. Pass a real tokenizer's `countTokens` to
 * `activateWorldInfo` for exact budgets.
 * @param text - any text
 * @returns a whole number of tokens
 */
export function estimateTokens(text: string): number {
  if (text === '') return 0;
  const unspaced = text.match(UNSPACED)?.length ?? 0;
  return unspaced + Math.ceil((text.length - unspaced) / CHARS_PER_TOKEN);
}
