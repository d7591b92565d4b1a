/** Small phrasing helpers for the story stages' generated prose. */

/**
 * The text before the first clause break (，,；;), trimmed and without end punctuation.
 * @param text - an action or sentence
 */
export function firstClause(text: string): string {
  return (text.split(/[，,；;。.!?！？]/u)[0] ?? '').trim();
}

/**
 * `text` with a sentence stop at the end (。 for Chinese, . for English) unless it has one.
 * @param text - a sentence
 * @param chinese - which stop to add
 */
export function withEndStop(text: string, chinese: boolean): string {
  const trimmed = text.trim();
  if (trimmed === '' || /[。！？!?.…”"」]$/u.test(trimmed)) return trimmed;
  return `${trimmed.replace(/[，,；;：:、]+$/u, '')}${chinese ? '。' : '.'}`;
}

/**
 * Applies `change` to the parts of `text` outside “…” / 「…」 quotes, so spoken lines stay verbatim.
 * @param text - a sentence
 * @param change - the rewrite for narration parts
 */
export function outsideQuotes(text: string, change: (part: string) => string): string {
  return text
    .split(/([“「][^”」]*[”」])/u)
    .map((part, index) => (index % 2 === 1 ? part : change(part)))
    .join('');
}

/**
 * Joins names the way the language lists them: "A、B和C" or "A, B and C".
 * @param names - names in order
 * @param chinese - the language
 */
export function listNames(names: readonly string[], chinese: boolean): string {
  if (names.length <= 1) return names[0] ?? '';
  const head = names.slice(0, -1).join(chinese ? '、' : ', ');
  return chinese ? `${head}和${names[names.length - 1]}` : `${head} and ${names[names.length - 1]}`;
}
