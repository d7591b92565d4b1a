// Whitespace rules of SillyTavern's engine: scoped content is trimmed and dedented, `{{noop}}`
// leaves an invisible sentinel that stops trimming around it, and the legacy `{{trim}}` eats the
// newlines around itself after everything else has run.

/** Sentinel `{{noop}}` leaves behind: not whitespace, so `trim()` stops at it; stripped at the end. */
export const PROTECTED = '\uFDD0';
/** Marker `{{else}}` leaves for the enclosing `{{if}}`; removed at the end when stray. */
export const ELSE_MARKER = '\u0000\u001FELSE\u001F\u0000';
/**
 * What the legacy, unscoped `{{trim}}` evaluates to until the final pass removes it with the
 * newlines around it. A sentinel rather than the literal text, so a variable or DIO prompt that
 * merely contains the characters `{{trim}}` is left alone.
 */
export const LEGACY_TRIM = '\uFDD1';

const LEGACY_TRIM_PATTERN = /(?:\r?\n)*\uFDD1(?:\r?\n)*/g;
const ESCAPED_BRACE = /\\([{}])/g;

/**
 * Unescapes `\{` and `\}` in source text (SillyTavern's way to write literal braces). Applied to
 * the text of prompts only, never to values, so a verbatim value keeps its backslashes.
 * @param text - a run of source text
 * @returns the text with the escapes removed
 */
export function unescapeBraces(text: string): string {
  return text.includes('\\') ? text.replace(ESCAPED_BRACE, '$1') : text;
}

/**
 * Removes the {@link PROTECTED} sentinel.
 * @param text - evaluated text
 * @returns the text without sentinels
 */
export function stripProtected(text: string): string {
  return text.includes(PROTECTED) ? text.replaceAll(PROTECTED, '') : text;
}

/**
 * Trims scoped content and removes the indentation of its first non-empty line from every line,
 * so an indented block inside `{{if}}…{{/if}}` reads as if it were written flush left.
 * @param content - resolved content
 * @returns trimmed, dedented content
 */
export function trimScopedContent(content: string): string {
  if (content === '') return '';
  // Fast path: the first non-blank character starts its line, so there is nothing to dedent.
  const first = content.search(/[^\s]/);
  if (first < 0) return '';
  const lineStart = content.lastIndexOf('\n', first - 1) + 1;
  if (lineStart === first) return content.trim();
  const lines = content.split('\n');
  let base = 0;
  for (const line of lines) {
    const bare = stripProtected(line);
    if (bare.trim() !== '') {
      base = (/^[ \t]*/.exec(bare)?.[0] ?? '').length;
      break;
    }
  }
  if (base === 0) return content.trim();
  return lines
    .map((line) => {
      const indent = (/^[ \t]*/.exec(line)?.[0] ?? '').length;
      return indent >= base ? line.slice(base) : line.trimStart();
    })
    .join('\n')
    .trim();
}

/**
 * The final pass over a fully expanded text: apply legacy `{{trim}}`, drop
 * stray `{{else}}` markers and sentinels.
 * @param text - expanded text
 * @returns the text as the model sees it
 */
export function finishExpansion(text: string): string {
  let result = text;
  if (result.includes(LEGACY_TRIM)) result = result.replace(LEGACY_TRIM_PATTERN, '');
  if (result.includes(ELSE_MARKER)) result = result.replaceAll(ELSE_MARKER, '');
  return stripProtected(result);
}

const LEGACY_TIME = /\{\{time_(UTC[+-]\d+)\}\}/gi;
const LEGACY_MARKERS = /<(USER|BOT|CHAR|GROUP|CHARIFNOTGROUP)>/gi;
const HAS_LEGACY_TIME = /\{\{time_/i;
const HAS_LEGACY_MARKER = /<(?:USER|BOT|CHAR|GROUP|CHARIFNOTGROUP)>/i;
const MARKER_MACROS: Readonly<Record<string, string>> = { user: '{{user}}', bot: '{{char}}', char: '{{char}}', group: '{{group}}', charifnotgroup: '{{charIfNotGroup}}' };

/**
 * Rewrites legacy syntax into macros before parsing: `{{time_UTC+2}}` → `{{time::UTC+2}}`,
 * `<USER>` → `{{user}}`, `<BOT>`/`<CHAR>` → `{{char}}`, `<GROUP>`, `<CHARIFNOTGROUP>`.
 * @param text - raw text
 * @returns text with only `{{…}}` macros
 */
export function rewriteLegacySyntax(text: string): string {
  const cached = rewritten.get(text);
  if (cached !== undefined) return cached;
  const result = rewriteUncached(text);
  // Prompts repeat every turn; keep their rewritten text (bounded, oldest out first).
  rewritten.set(text, result);
  if (rewritten.size > 4096) {
    const oldest = rewritten.keys().next();
    if (oldest.done !== true) rewritten.delete(oldest.value);
  }
  return result;
}

const rewritten = new Map<string, string>();

function rewriteUncached(text: string): string {
  let result = text;
  if (HAS_LEGACY_TIME.test(result)) result = result.replace(LEGACY_TIME, (_all, offset: string) => `{{time::${offset}}}`);
  if (result.includes('<') && HAS_LEGACY_MARKER.test(result)) result = result.replace(LEGACY_MARKERS, (all, name: string) => MARKER_MACROS[name.toLowerCase()] ?? all);
  return result;
}
