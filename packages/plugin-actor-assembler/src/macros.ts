import { AssemblerError } from './errors.js';

/** Variables that only slot rules may bind; reading one unset is an error, never an empty string. */
export const SLOT_VARIABLES: ReadonlySet<string> = new Set(['dioCompiledPrompt', 'storyDraft']);

/** Character fields available as `{{description}}`, `{{personality}}`, `{{scenario}}`, `{{persona}}`, `{{mesExamples}}`. */
export interface MacroFields {
  readonly description?: string;
  readonly personality?: string;
  readonly scenario?: string;
  readonly persona?: string;
  readonly mesExamples?: string;
}

/** Everything macro expansion can read or write. */
export interface MacroEnvironment {
  /** `{{user}}` / `<USER>`; default `User`. */
  readonly user?: string;
  /** `{{char}}` / `<BOT>`; default `Character`. */
  readonly char?: string;
  /** `{{original}}`: the text an override replaced ('' when there is none). */
  readonly original?: string;
  readonly fields?: MacroFields;
  /** Read by `getvar`, written by `setvar`, in text order. */
  readonly variables: Map<string, string>;
  /** What to do with an unknown `{{macro}}`: keep it as text (default) or throw. */
  readonly unknownMacros?: 'keep' | 'error';
  /** Whether `setvar` may write slot variables (only the slot rules pass true). */
  readonly allowSlotWrites?: boolean;
}

/** One macro occurrence found in a text. */
export interface MacroMatch {
  /** Lower-case macro name (`getvar`, `user`, …). */
  readonly name: string;
  /** Arguments after the name, split on `::` (the last one keeps any further `::`). */
  readonly args: readonly string[];
  /** Offset of the opening `{{` (or `<`). */
  readonly index: number;
  /** The whole matched text. */
  readonly raw: string;
}

// `{{…}}` without braces inside: in `{{getvar::{{user}}}}` only `{{user}}` is a macro, so
// nesting never recurses. `<USER>`/`<BOT>` are the legacy Tavern forms.
const MACRO_PATTERN = /\{\{([^{}]*)\}\}|<(USER|BOT)>/gi;

function parse(raw: string, body: string | undefined, legacy: string | undefined, index: number): MacroMatch {
  if (legacy !== undefined) return { name: legacy.toLowerCase() === 'user' ? 'user' : 'char', args: [], index, raw };
  const text = body ?? '';
  const separator = text.indexOf('::');
  const name = (separator < 0 ? text : text.slice(0, separator)).trim().toLowerCase();
  if (separator < 0) return { name, args: [], index, raw };
  const rest = text.slice(separator + 2);
  // setvar's value may itself contain `::`; only the variable name is split off.
  const second = rest.indexOf('::');
  const args = name === 'setvar' && second >= 0 ? [rest.slice(0, second), rest.slice(second + 2)] : [rest];
  return { name, args, index, raw };
}

/**
 * Lists the macros in a text, left to right.
 * @param text - prompt text
 * @returns every macro occurrence (nested braces: only the innermost `{{…}}`)
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

// Card fields are written with {{char}}/{{user}} in them (SillyTavern substitutes them at build
// time). Only names are substituted inside a field, and names are plain text, so this cannot loop.
const NAME_PATTERN = /\{\{\s*(user|char)\s*\}\}|<(USER|BOT)>/gi;
function expandNames(text: string, env: MacroEnvironment): string {
  return text.replace(NAME_PATTERN, (_raw: string, name: string | undefined, legacy: string | undefined) =>
    (name ?? legacy ?? '').toLowerCase() === 'user' ? (env.user ?? 'User') : (env.char ?? 'Character'),
  );
}

function expandOne(match: MacroMatch, env: MacroEnvironment): string {
  const fields = env.fields ?? {};
  switch (match.name) {
    case 'user':
      return env.user ?? 'User';
    case 'char':
      return env.char ?? 'Character';
    case 'original':
      return env.original ?? '';
    case 'description':
    case 'personality':
    case 'scenario':
    case 'persona':
      return expandNames(fields[match.name] ?? '', env);
    case 'mesexamples':
      return expandNames(fields.mesExamples ?? '', env);
    case 'getvar': {
      const name = match.args[0]?.trim() ?? '';
      const value = env.variables.get(name);
      if (value !== undefined) return value;
      if (SLOT_VARIABLES.has(name)) {
        throw new AssemblerError('MACRO_SLOT_VARIABLE_UNSET', `{{getvar::${name}}} is a slot variable but nothing bound it this turn`, { variable: name });
      }
      // Ordinary chat variables follow SillyTavern: unset reads as ''.
      return '';
    }
    case 'setvar': {
      const name = match.args[0]?.trim() ?? '';
      if (name !== '' && match.args.length === 2) {
        if (SLOT_VARIABLES.has(name) && env.allowSlotWrites !== true) {
          throw new AssemblerError('MACRO_RESERVED_VARIABLE', `{{setvar::${name}::…}} may not set a slot variable; only the slot rules bind it`, { variable: name });
        }
        env.variables.set(name, match.args[1] ?? '');
        return '';
      }
      break;
    }
  }
  if (env.unknownMacros === 'error') throw new AssemblerError('MACRO_UNKNOWN', `Unknown or malformed macro ${match.raw}`, { macro: match.raw });
  return match.raw;
}

/**
 * Expands macros in one pass, left to right: replacement text is never scanned again, so a value
 * containing `{{…}}` stays literal and expansion cannot loop. The one exception: character
 * fields (`{{description}}`, …) get `{{char}}`/`{{user}}` substituted inside, as cards expect. `setvar` then `getvar` in the same
 * text (or a later prompt sharing `env.variables`) sees the new value.
 * @param text - text with macros
 * @param env - names, fields, variables and options
 * @returns the expanded text
 * @throws {AssemblerError} MACRO_SLOT_VARIABLE_UNSET, MACRO_RESERVED_VARIABLE, MACRO_UNKNOWN (when `unknownMacros: 'error'`)
 */
export function expandMacros(text: string, env: MacroEnvironment): string {
  return text.replace(MACRO_PATTERN, (raw: string, body: string | undefined, legacy: string | undefined, index: number) => expandOne(parse(raw, body, legacy, index), env));
}
