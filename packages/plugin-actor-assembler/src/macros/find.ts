/** One macro occurrence found in a text. */
export interface MacroMatch {
  /** Lower-case macro name (`getvar`, `user`, …). */
  readonly name: string;
  /** Arguments after the name, split on `::` (`setvar` keeps any further `::` in its value). */
  readonly args: readonly string[];
  /** Offset of the opening `{{` (or `<`). */
  readonly index: number;
  /** The whole matched text. */
  readonly raw: string;
}

// `{{…}}` without braces inside: in `{{getvar::{{user}}}}` only `{{user}}` matches. This scanner
// answers "which prompt reads which variable" for the slot rules; expansion uses the parser.
const MACRO_PATTERN = /\{\{([^{}]*)\}\}|<(USER|BOT)>/gi;

function parse(raw: string, body: string | undefined, legacy: string | undefined, index: number): MacroMatch {
  if (legacy !== undefined) return { name: legacy.toLowerCase() === 'user' ? 'user' : 'char', args: [], index, raw };
  const text = body ?? '';
  const separator = text.indexOf('::');
  const name = (separator < 0 ? text : text.slice(0, separator)).trim().toLowerCase();
  if (separator < 0) return { name, args: [], index, raw };
  const rest = text.slice(separator + 2);
  const second = rest.indexOf('::');
  const args = name === 'setvar' && second >= 0 ? [rest.slice(0, second), rest.slice(second + 2)] : [rest];
  return { name, args, index, raw };
}

/**
 * Lists the innermost `{{…}}` macros of a text, left to right (a static scan: nothing runs).
 * @param text - prompt text
 * @returns every macro occurrence
 */
export function findMacros(text: string): MacroMatch[] {
  const matches: MacroMatch[] = [];
  for (const match of text.matchAll(MACRO_PATTERN)) matches.push(parse(match[0], match[1], match[2], match.index));
  return matches;
}

/**
 * True when a macro is `{{getvar::<variable>}}` (name trimmed, case-sensitive).
 * @param match - a parsed macro
 * @param variable - variable name
 * @returns whether the macro reads that variable
 */
export function isGetvar(match: MacroMatch, variable: string): boolean {
  return match.name === 'getvar' && match.args.length === 1 && match.args[0]?.trim() === variable;
}
