/** The mark a clipped text carries where text was left out. */
export const CLIP_MARK = '…';

// No tokenizer gives fewer than one token per this many characters on real text, so a longer
// text is cut to this before counting (counting a 1 MB paste would cost more than the turn).
const MAX_CHARS_PER_TOKEN = 32;

/**
 * The longest start (`keep: 'head'`) or end (`keep: 'tail'`) of `text` that fits `tokens`,
 * marked with {@link CLIP_MARK} where it was cut; cut at a line break when one is near.
 * @param text - any text
 * @param tokens - the most tokens the result may count
 * @param count - the budget's counter
 * @param keep - which end to keep
 * @returns `text` itself when it fits; otherwise a clipped text of at most `tokens` (possibly empty)
 */
export function clipToTokens(text: string, tokens: number, count: (text: string) => number, keep: 'head' | 'tail'): string {
  if (tokens <= 0) return '';
  const bound = tokens * MAX_CHARS_PER_TOKEN;
  let body = text.length > bound ? cut(text, bound, keep) : text;
  if (body === text && count(text) <= tokens) return text;
  const markTokens = count(CLIP_MARK) + 1;
  if (tokens <= markTokens) return '';
  const room = tokens - markTokens;
  for (let attempt = 0; attempt < 12 && body.length > 0; attempt++) {
    const used = count(body);
    if (used <= room) break;
    body = cut(body, Math.floor(body.length * Math.min(0.95, (room / used) * 0.97)), keep);
  }
  if (count(body) > room) body = '';
  body = atLineBreak(body, keep);
  return keep === 'head' ? `${body}${CLIP_MARK}` : `${CLIP_MARK}${body}`;
}

function cut(text: string, chars: number, keep: 'head' | 'tail'): string {
  let at = keep === 'head' ? chars : text.length - chars;
  // Never between the two halves of a surrogate pair.
  const code = text.charCodeAt(at - (keep === 'head' ? 1 : 0));
  if (code >= 0xd800 && code <= 0xdbff) at += keep === 'head' ? -1 : 1;
  return keep === 'head' ? text.slice(0, Math.max(0, at)) : text.slice(Math.min(text.length, at));
}

// Prefer whole lines when the cut is within the last (first) fifth of the kept text.
function atLineBreak(text: string, keep: 'head' | 'tail'): string {
  if (keep === 'head') {
    const at = text.lastIndexOf('\n');
    return at > text.length * 0.8 ? text.slice(0, at + 1) : text;
  }
  const at = text.indexOf('\n');
  return at >= 0 && at < text.length * 0.2 ? text.slice(at + 1) : text;
}
