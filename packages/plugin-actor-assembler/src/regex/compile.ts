const FLAGS = /^(?!.*?(.).*?\1)[dgimsuvy]+$/;

/**
 * Compiles a SillyTavern `findRegex`: `/pattern/flags`, or a bare pattern (no flags).
 * @param text - the pattern as stored
 * @returns the RegExp
 * @throws {SyntaxError} for an invalid pattern or flags
 */
export function compileFindRegex(text: string): RegExp {
  const match = /^\/([\s\S]+)\/([a-z]*)$/i.exec(text);
  if (match === null) return new RegExp(text);
  const [, pattern = '', flags = ''] = match;
  if (flags !== '' && !FLAGS.test(flags)) throw new SyntaxError(`invalid regex flags "${flags}"`);
  return new RegExp(pattern, flags);
}

/**
 * Escapes text so it matches itself inside a regex (for macro values in `substituteRegex: 2`).
 * @param text - any text
 * @returns the escaped text
 */
export function escapeRegexText(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
