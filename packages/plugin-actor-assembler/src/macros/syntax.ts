// The macro syntax of SillyTavern's newer engine, parsed by hand into a small tree: text, macro
// calls `{{flags name::arg::arg}}` (args may hold nested macros), closing tags `{{/name}}`,
// comments `{{// …}}` and variable shorthands `{{.name op value}}` / `{{$name op value}}`.
// Anything that does not parse as a macro stays text, exactly as written.

/** Literal text of the source. */
export interface TextPart {
  readonly kind: 'text';
  readonly text: string;
  /** The text as output: `\{` and `\}` unescaped (SillyTavern's way to write literal braces). */
  readonly value: string;
}

/** A `{{…}}` call (or closing tag, or comment). Offsets are into the parsed source. */
export interface MacroPart {
  readonly kind: 'macro';
  /** Offset of the opening `{{`. */
  readonly start: number;
  /** Offset just after the closing `}}`. */
  readonly end: number;
  /** Flag characters before the name (`#`, `!`, `?`, `~`, `>`), closing `/` excluded. */
  readonly flags: string;
  /** `{{/name}}`. */
  readonly closing: boolean;
  /** `{{// …}}` (`name` is `//`). */
  readonly comment: boolean;
  /** The name as written. */
  readonly name: string;
  /** Lower-case name, for lookups (macro names are case-insensitive in SillyTavern). */
  readonly key: string;
  /** The arguments, each as parts (nested macros included). */
  readonly args: readonly (readonly Part[])[];
  /** Source range of each argument, for macros that resolve their arguments lazily. */
  readonly argRanges: readonly (readonly [number, number])[];
  /** Everything between `{{` and `}}`, for reproducing the call as text. */
  readonly inner: readonly Part[];
}

/** A variable shorthand: `{{.name}}`, `{{$name++}}`, `{{.name ??= value}}`, … */
export interface VariablePart {
  readonly kind: 'variable';
  readonly start: number;
  readonly end: number;
  readonly scope: 'local' | 'global';
  readonly name: string;
  /** The operator, or undefined for a plain read. */
  readonly operator: VariableOperator | undefined;
  /** The value expression after a binary operator. */
  readonly value: readonly Part[];
}

/** Operators of the variable shorthand, longest first (the order they are matched in). */
export const VARIABLE_OPERATORS = ['++', '--', '??=', '??', '||=', '||', '-=', '==', '!=', '>=', '>', '<=', '<', '+=', '='] as const;
/** One variable shorthand operator. */
export type VariableOperator = (typeof VARIABLE_OPERATORS)[number];

/** One piece of a parsed text. */
export type Part = TextPart | MacroPart | VariablePart;

/** Nesting deeper than this is left as text: a hostile prompt cannot exhaust the stack. */
export const MAX_PARSE_DEPTH = 48;

const IDENTIFIER = /[a-zA-Z][\w-]*/y;
const VARIABLE_NAME = /[a-zA-Z](?:[\w-]*\w)?/y;
const FLAG_CHARS = new Set(['!', '?', '~', '#', '/', '>']);

function textPart(text: string): TextPart {
  return { kind: 'text', text, value: text.includes('\\') ? text.replace(/\\([{}])/g, '$1') : text };
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11;
}

type Stop = 'eof' | 'end' | 'endOrSeparator';

/** Thrown when a hostile text would cost more than the parse budget; the text is then kept as is. */
class ParseBudgetExceeded extends Error {}

class Parser {
  // A macro at a given offset parses the same whatever surrounds it, so results are memoised.
  private readonly memo = new Map<number, MacroPart | VariablePart | null>();
  // No macro can start after the last `}}`.
  private readonly lastClose: number;
  // Characters the parser may visit: a few passes over the text. Nested unterminated openers
  // could otherwise cost quadratic time.
  private budget: number;

  constructor(private readonly src: string) {
    this.lastClose = src.lastIndexOf('}}');
    this.budget = 64 * src.length + 100_000;
  }

  /** Parses a run of parts until `stop`; returns the parts and where it stopped. */
  sequence(from: number, stop: Stop, depth: number): { parts: Part[]; end: number } {
    const { src } = this;
    const parts: Part[] = [];
    let textStart = from;
    let pos = from;
    const flush = (until: number) => {
      if (until > textStart) parts.push(textPart(src.slice(textStart, until)));
    };
    while (pos < src.length) {
      if (--this.budget < 0) throw new ParseBudgetExceeded();
      const code = src.charCodeAt(pos);
      if (code === 125 /* } */ && stop !== 'eof' && src.charCodeAt(pos + 1) === 125) break;
      if (code === 58 /* : */ && stop === 'endOrSeparator' && src.charCodeAt(pos + 1) === 58) break;
      if (code === 123 /* { */ && src.charCodeAt(pos + 1) === 123) {
        // `{{{x}}`: the first brace is text, the macro starts at the last `{{`.
        if (src.charCodeAt(pos + 2) === 123) {
          pos++;
          continue;
        }
        const macro = depth < MAX_PARSE_DEPTH ? this.macroAt(pos, depth + 1) : null;
        if (macro !== null) {
          flush(pos);
          parts.push(macro);
          pos = macro.end;
          textStart = pos;
          continue;
        }
        pos += 2;
        continue;
      }
      pos++;
    }
    flush(pos);
    return { parts, end: pos };
  }

  private macroAt(start: number, depth: number): MacroPart | VariablePart | null {
    if (start > this.lastClose) return null;
    const cached = this.memo.get(start);
    if (cached !== undefined) return cached;
    const parsed = this.parseMacro(start, depth);
    this.memo.set(start, parsed);
    return parsed;
  }

  private skipSpace(pos: number): number {
    while (pos < this.src.length && isSpace(this.src.charCodeAt(pos))) pos++;
    return pos;
  }

  private parseMacro(start: number, depth: number): MacroPart | VariablePart | null {
    const { src } = this;
    let pos = this.skipSpace(start + 2);
    if (src.startsWith('///', pos)) return this.comment(start, pos + 3, true, depth);
    if (src.startsWith('//', pos)) return this.comment(start, pos + 2, false, depth);
    let flags = '';
    let closing = false;
    while (pos < src.length) {
      const char = src[pos] as string;
      if (FLAG_CHARS.has(char)) {
        if (char === '/') {
          // `{{///}}` closes a scoped comment.
          if (src.startsWith('//', pos + 1) && !closing) return this.comment(start, pos + 3, true, depth);
          closing = true;
        } else flags += char;
        pos++;
      } else if (isSpace(src.charCodeAt(pos))) pos++;
      else break;
    }
    if (!closing && (src[pos] === '.' || src[pos] === '$')) return this.variable(start, pos, depth);
    IDENTIFIER.lastIndex = pos;
    const identifier = IDENTIFIER.exec(src);
    if (identifier === null) return null;
    const name = identifier[0];
    pos += name.length;
    const inner: Part[] = [textPart(src.slice(start + 2, pos))];
    const args: Part[][] = [];
    const argRanges: [number, number][] = [];
    const finish = (end: number): MacroPart => ({ kind: 'macro', start, end, flags, closing, comment: false, name, key: name.toLowerCase(), args, argRanges, inner });
    const after = src.charCodeAt(pos);
    let mode: 'double' | 'single' | null = null;
    if (src.startsWith('}}', pos)) return finish(pos + 2);
    if (src.startsWith('::', pos)) mode = 'double';
    else if (after === 58) mode = 'single';
    else if (isSpace(after)) {
      const next = this.skipSpace(pos);
      if (src.startsWith('}}', next)) {
        inner.push(textPart(src.slice(pos, next)));
        return finish(next + 2);
      }
      if (src.startsWith('::', next)) {
        inner.push(textPart(src.slice(pos, next)));
        pos = next;
        mode = 'double';
      } else mode = 'single';
    } else return null;
    if (mode === 'single') {
      // Legacy `{{name:arg}}` / `{{name arg}}`: everything after the first separator is one argument.
      const separator = src.charCodeAt(pos) === 58 ? 1 : 0;
      inner.push(textPart(src.slice(pos, pos + separator)));
      const body = this.sequence(pos + separator, 'end', depth);
      if (!src.startsWith('}}', body.end)) return null;
      args.push(body.parts);
      argRanges.push([pos + separator, body.end]);
      inner.push(...body.parts);
      return finish(body.end + 2);
    }
    while (src.startsWith('::', pos)) {
      inner.push(textPart('::'));
      const body = this.sequence(pos + 2, 'endOrSeparator', depth);
      args.push(body.parts);
      argRanges.push([pos + 2, body.end]);
      inner.push(...body.parts);
      pos = body.end;
    }
    if (!src.startsWith('}}', pos)) return null;
    return finish(pos + 2);
  }

  private comment(start: number, bodyStart: number, closing: boolean, depth: number): MacroPart | null {
    // Nested macros are parsed only so their `}}` does not end the comment; they never run.
    const body = this.sequence(bodyStart, 'end', depth);
    if (!this.src.startsWith('}}', body.end)) return null;
    return {
      kind: 'macro',
      start,
      end: body.end + 2,
      flags: '',
      closing,
      comment: true,
      name: '//',
      key: '//',
      args: [body.parts],
      argRanges: [[bodyStart, body.end]],
      inner: [textPart(this.src.slice(start + 2, body.end))],
    };
  }

  private variable(start: number, prefixAt: number, depth: number): VariablePart | null {
    const { src } = this;
    const scope = src[prefixAt] === '.' ? 'local' : 'global';
    let pos = this.skipSpace(prefixAt + 1);
    VARIABLE_NAME.lastIndex = pos;
    const match = VARIABLE_NAME.exec(src);
    if (match === null) return null;
    const name = match[0];
    pos = this.skipSpace(pos + name.length);
    const operator = VARIABLE_OPERATORS.find((candidate) => src.startsWith(candidate, pos));
    if (operator === undefined) {
      return src.startsWith('}}', pos) ? { kind: 'variable', start, end: pos + 2, scope, name, operator: undefined, value: [] } : null;
    }
    pos += operator.length;
    if (operator === '++' || operator === '--') {
      pos = this.skipSpace(pos);
      return src.startsWith('}}', pos) ? { kind: 'variable', start, end: pos + 2, scope, name, operator, value: [] } : null;
    }
    const body = this.sequence(pos, 'end', depth);
    if (!src.startsWith('}}', body.end)) return null;
    return { kind: 'variable', start, end: body.end + 2, scope, name, operator, value: body.parts };
  }
}

// Prompts are the same text turn after turn, so their parse trees are kept (the trees are never
// changed after parsing). Bounded by entries and by characters, oldest out first.
const CACHE_ENTRIES = 4096;
const CACHE_CHARS = 8_000_000;
const cache = new Map<string, readonly Part[]>();
let cachedChars = 0;

/**
 * Parses a text into parts. Never throws: what is not a well-formed macro is text. Results are
 * cached by text (bounded), so a preset's prompts are parsed once.
 * @param source - the text
 * @returns the top-level parts, in order (shared: do not change them)
 */
export function parseMacros(source: string): readonly Part[] {
  const hit = cache.get(source);
  if (hit !== undefined) return hit;
  let parts: readonly Part[];
  try {
    parts = new Parser(source).sequence(0, 'eof', 0).parts;
  } catch (error) {
    if (!(error instanceof ParseBudgetExceeded)) throw error;
    parts = [textPart(source)];
  }
  if (source.length <= CACHE_CHARS / 8) {
    cache.set(source, parts);
    cachedChars += source.length;
    for (const [key] of cache) {
      if (cache.size <= CACHE_ENTRIES && cachedChars <= CACHE_CHARS) break;
      cache.delete(key);
      cachedChars -= key.length;
    }
  }
  return parts;
}
