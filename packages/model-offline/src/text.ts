/** Small text helpers shared by the offline stages (code-point aware, so CJK and emoji stay whole). */

const CJK = /[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]/;

/**
 * True when `text` contains Chinese, Japanese or Korean characters.
 * @param text - any string
 */
export function isCjk(text: string): boolean {
  return CJK.test(text);
}

/**
 * Collapses whitespace and cuts `text` to at most `max` code points, adding an ellipsis when cut.
 * @param text - any string
 * @param max - most code points to keep (the ellipsis included)
 * @returns the shortened single-line text
 */
export function snippet(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const points = Array.from(flat);
  if (points.length <= max) return flat;
  return `${points.slice(0, Math.max(1, max - 1)).join('').trimEnd()}…`;
}

/**
 * Removes trailing sentence punctuation so a snippet can be quoted inside a sentence.
 * @param text - a snippet
 */
export function stripEndPunctuation(text: string): string {
  return text.replace(/[\s.。!！?？,，;；:：…]+$/u, '');
}

/**
 * The first sentence of `text` (Chinese or English punctuation), without Markdown headings.
 * @param text - prose, possibly Markdown
 * @returns the first sentence, trimmed; empty when there is none
 */
export function firstSentence(text: string): string {
  const body = text
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*#/.test(line))
    .join(' ')
    .trim();
  const match = /^(.+?[.!?。！？])(\s|$)/u.exec(body);
  return (match?.[1] ?? body).trim();
}

const SENTENCE_END = /[。！？!?…]/u;
const CLOSERS = /[”’」』）)"'\]]/u;

/**
 * Splits prose into sentences at Chinese or English sentence ends, keeping closing quotes with the
 * sentence they close ("他说：“走吧。”" stays one sentence).
 * @param text - prose (one paragraph or several)
 * @returns the trimmed, non-empty sentences in order
 */
export function splitSentences(text: string): string[] {
  const points = Array.from(text.replace(/\s*\n\s*/g, ' '));
  const result: string[] = [];
  let current = '';
  let depth = 0;
  for (let index = 0; index < points.length; index++) {
    const point = points[index]!;
    current += point;
    if (point === '“' || point === '「') depth++;
    if ((point === '”' || point === '」') && depth > 0) depth--;
    const englishStop = point === '.' && (index + 1 >= points.length || /\s/.test(points[index + 1]!));
    if (!SENTENCE_END.test(point) && !englishStop) continue;
    // Keep runs of end punctuation and the closing quotes that follow them.
    while (index + 1 < points.length && (SENTENCE_END.test(points[index + 1]!) || CLOSERS.test(points[index + 1]!))) {
      const next = points[++index]!;
      current += next;
      if ((next === '”' || next === '」') && depth > 0) depth--;
    }
    if (depth > 0) continue;
    if (current.trim() !== '') result.push(current.trim());
    current = '';
  }
  if (current.trim() !== '') result.push(current.trim());
  return result;
}

/**
 * A comparison key for a sentence: lower case, without whitespace and punctuation, so repeated
 * sentences are found even when spacing or quotes differ.
 * @param sentence - one sentence
 */
export function sentenceKey(sentence: string): string {
  return sentence.toLowerCase().replace(/[\s\p{P}\p{S}]+/gu, '');
}

/**
 * How much two texts share: common CJK character pairs plus common Latin words of three or more
 * letters. Deterministic and cheap; used to pick the facts that relate to the player's input.
 * @param a - one text
 * @param b - the other text
 * @returns the number of shared units (0 when unrelated)
 */
export function overlapScore(a: string, b: string): number {
  const left = units(a);
  let score = 0;
  for (const unit of units(b)) if (left.has(unit)) score++;
  return score;
}

function units(text: string): Set<string> {
  const found = new Set<string>();
  for (const run of text.match(/[\u3400-\u9fff]+/gu) ?? []) {
    const points = Array.from(run);
    for (let index = 0; index + 1 < points.length; index++) found.add(`${points[index]}${points[index + 1]}`);
  }
  for (const word of text.toLowerCase().match(/[a-z][a-z'-]{2,}/g) ?? []) if (!STOP_WORDS.has(word)) found.add(word);
  return found;
}

const STOP_WORDS = new Set(['the', 'and', 'you', 'are', 'for', 'with', 'that', 'this', 'what', 'who', 'why', 'how', 'was', 'his', 'her', 'she', 'they', 'from', 'have', 'has', 'not', 'but', 'about', 'there']);

/**
 * Counts a sentence's length the way the short-sentence rule reads it: CJK characters one each,
 * Latin words one each.
 * @param text - a sentence or clause
 */
export function spokenLength(text: string): number {
  const cjk = (text.match(/[\u3400-\u9fff\u3040-\u30ff\uac00-\ud7af]/gu) ?? []).length;
  const words = (text.match(/[A-Za-z0-9][A-Za-z0-9'-]*/g) ?? []).length;
  return cjk + words;
}
