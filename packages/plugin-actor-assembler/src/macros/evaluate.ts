import { AssemblerError } from '../errors.js';
import type { MacroCall, MacroDefinition } from './definition.js';
import { type MacroEnvironment, SLOT_VARIABLES } from './environment.js';
import { MACRO_TABLE } from './registry.js';
import { type MacroPart, type Part, type VariablePart, parseMacros } from './syntax.js';
import { readLocal } from './definitions/variable-macros.js';
import { addVariable, isTruthyValue, stepVariable, subtractVariable } from './variables.js';
import { rewriteLegacySyntax, trimScopedContent } from './whitespace.js';

/** Nested expansions (`{{if}}` branches, card fields) deeper than this stay as text: nothing can loop. */
export const MAX_EXPANSION_DEPTH = 12;

/** State shared by one top-level expansion and everything it resolves. */
export interface ExpansionState {
  readonly env: MacroEnvironment;
  readonly globals: Map<string, string>;
  /** Hash of the top-level text, computed on first use. */
  contentHash(): number;
  readonly random: () => number;
  depth: number;
  /** Card fields being expanded right now: a field that mentions itself expands to ''. */
  readonly activeFields: Set<string>;
}

function lookup(key: string): MacroDefinition | undefined {
  return Object.hasOwn(MACRO_TABLE, key) ? MACRO_TABLE[key] : undefined;
}

function isZeroArgMacro(name: string): boolean {
  return lookup(name.toLowerCase())?.minArgs === 0;
}

function takesScopedContent(part: MacroPart): boolean {
  const definition = lookup(part.key);
  return definition === undefined || part.args.length + 1 <= definition.maxArgs;
}

// Finds the `{{/name}}` that closes the opener at `index` among its siblings. A same-name opener
// that could itself take content nests; an inline call with all its arguments does not (so an
// inline `{{if::a::b}}` inside `{{if x}}…{{/if}}` leaves the outer `{{/if}}` alone).
function findCloser(parts: readonly Part[], index: number): number {
  const opener = parts[index] as MacroPart;
  let depth = 0;
  for (let next = index + 1; next < parts.length; next++) {
    const part = parts[next];
    if (part === undefined || part.kind !== 'macro' || part.key !== opener.key || part.comment !== opener.comment) continue;
    if (part.closing) {
      if (depth === 0) return next;
      depth--;
    } else if (takesScopedContent(part)) depth++;
  }
  return -1;
}

/** For each opener of a part list, the content and closer of its scoped block (or none). */
type Pairing = readonly ({ readonly content: readonly Part[]; readonly closer: number } | undefined)[];
// Part lists are cached and never change, and pairing depends only on the macro table: computed once per list.
const pairings = new WeakMap<readonly Part[], Pairing | null>();
function pairingOf(parts: readonly Part[]): Pairing | null {
  const known = pairings.get(parts);
  if (known !== undefined) return known;
  let pairing: ({ content: readonly Part[]; closer: number } | undefined)[] | null = null;
  if (parts.some((part) => part.kind === 'macro' && part.closing)) {
    pairing = parts.map((part, index) => {
      if (part.kind !== 'macro' || part.closing) return undefined;
      const closer = findCloser(parts, index);
      return closer < 0 ? undefined : { content: parts.slice(index + 1, closer), closer };
    });
  }
  pairings.set(parts, pairing);
  return pairing;
}

/** Walks parsed parts and runs the macros, inside-out and left to right. */
export class MacroEvaluator {
  // Results of nested macros, so a call that fails after its arguments ran is reproduced as text
  // without running them twice. Created on first use.
  private resolved: Map<Part, string> | undefined;
  // Made once per evaluator, not once per macro call.
  private readonly resolveNested = (text: string, offset: number): string => this.nested(text, offset);

  constructor(
    private readonly state: ExpansionState,
    private readonly source: string,
    private readonly base: number,
  ) {}

  /**
   * Expands `source` (already rewritten for legacy syntax) at `base` of the top-level text.
   * @returns the expanded text (sentinels kept for the caller's final pass)
   */
  run(): string {
    return this.sequence(parseMacros(this.source));
  }

  private sequence(parts: readonly Part[]): string {
    if (parts.length === 1 && parts[0]?.kind === 'text') return parts[0].value;
    let out = '';
    const pairing = pairingOf(parts);
    for (let index = 0; index < parts.length; index++) {
      const part = parts[index] as Part;
      const block = pairing?.[index];
      if (block !== undefined && part.kind === 'macro') {
        out += this.scoped(part, block.content, parts[block.closer] as MacroPart);
        index = block.closer;
        continue;
      }
      out += this.part(part);
    }
    return out;
  }

  private part(part: Part): string {
    if (part.kind === 'text') return part.value;
    const cached = this.resolved?.get(part);
    if (cached !== undefined) return cached;
    let value: string;
    if (part.kind === 'variable') value = this.variable(part);
    else if (part.closing) value = this.raw(part);
    else if (part.comment) value = '';
    else value = this.call(part, undefined);
    this.resolved ??= new Map();
    this.resolved.set(part, value);
    return value;
  }

  private raw(part: MacroPart): string {
    let inner = '';
    for (const piece of part.inner) inner += this.part(piece);
    return `{{${inner}}}`;
  }

  private scoped(opener: MacroPart, content: readonly Part[], closer: MacroPart): string {
    // `{{//}}…{{///}}` is a block comment: nothing inside runs.
    if (opener.comment) return '';
    return this.call(opener, { content, closer });
  }

  private fail(part: MacroPart, scope: { content: readonly Part[]; closer: MacroPart } | undefined): string {
    // SillyTavern keeps a call it cannot run as text, with the macros inside it resolved.
    return scope === undefined ? this.raw(part) : `${this.raw(part)}${this.sequence(scope.content)}${this.raw(scope.closer)}`;
  }

  private call(part: MacroPart, scope: { content: readonly Part[]; closer: MacroPart } | undefined): string {
    const { env } = this.state;
    const definition = lookup(part.key);
    if (definition === undefined) {
      if (env.unknownMacros === 'error') throw new AssemblerError('MACRO_UNKNOWN', `Unknown macro {{${part.name}}}`, { details: { macro: part.name } });
      env.onUnknownMacro?.(part.name);
      return this.fail(part, scope);
    }
    const count = part.args.length + (scope === undefined ? 0 : 1);
    if (count < definition.minArgs || count > definition.maxArgs) {
      env.onWarning?.(`Macro "${part.name}" called with ${count} unnamed arguments; it takes ${definition.minArgs}–${definition.maxArgs}. Kept as text.`);
      return this.fail(part, scope);
    }
    const keepWhitespace = part.flags.includes('#');
    let args: string[];
    let argOffsets: number[];
    if (definition.delayArgs === true) {
      args = part.argRanges.map(([start, end]) => this.source.slice(start, end));
      argOffsets = part.argRanges.map(([start]) => this.base + start);
      if (scope !== undefined) {
        const [start, end] = [part.end, scope.closer.start];
        args.push(this.source.slice(start, end));
        argOffsets.push(this.base + start);
      }
    } else {
      args = part.args.map((arg) => this.sequence(arg).trim());
      argOffsets = part.argRanges.map(([start]) => this.base + start);
      if (scope !== undefined) {
        const content = this.sequence(scope.content);
        args.push(keepWhitespace ? content : trimScopedContent(content));
        argOffsets.push(this.base + part.end);
      }
    }
    const call: MacroCall = {
      name: part.name,
      args,
      argOffsets,
      flags: part.flags,
      scoped: scope !== undefined,
      offset: this.base + part.start,
      env,
      contentHash: this.state.contentHash,
      globals: this.state.globals,
      activeFields: this.state.activeFields,
      random: this.state.random,
      resolve: this.resolveNested,
      isZeroArgMacro,
    };
    try {
      const result = definition.handler(call);
      return env.transformResult === undefined ? result : env.transformResult(result);
    } catch (error) {
      if (AssemblerError.isInstance(error)) throw error;
      env.onWarning?.(`Macro "${part.name}" failed: ${(error as Error).message}. Kept as text.`);
      return this.fail(part, scope);
    }
  }

  private nested(text: string, offset: number): string {
    if (text === '') return '';
    if (this.state.depth >= MAX_EXPANSION_DEPTH) {
      this.state.env.onWarning?.(`Macros nested deeper than ${MAX_EXPANSION_DEPTH} levels were left as text`);
      return text;
    }
    this.state.depth++;
    try {
      return new MacroEvaluator(this.state, rewriteLegacySyntax(text), offset).run();
    } finally {
      this.state.depth--;
    }
  }

  private variable(part: VariablePart): string {
    const store = part.scope === 'local' ? this.state.env.variables : this.state.globals;
    const { name, operator } = part;
    const value = () => this.sequence(part.value).trim();
    const writable = () => {
      if (part.scope === 'local') {
        // The same slot-variable rule as setvar: only the slot rules bind them.
        if (SLOT_VARIABLES.has(name) && this.state.env.allowSlotWrites !== true) {
          throw new AssemblerError('MACRO_RESERVED_VARIABLE', `{{.${name} …}} may not write a slot variable; only the slot rules bind it`, { details: { variable: name } });
        }
      }
    };
    const current = () => (part.scope === 'local' ? readLocal(store, name) : (store.get(name) ?? ''));
    switch (operator) {
      case undefined:
        return current();
      case '=':
        writable();
        store.set(name, value());
        return '';
      case '++':
      case '--':
        writable();
        return stepVariable(store, name, operator === '++' ? 1 : -1);
      case '+=':
        writable();
        addVariable(store, name, value());
        return '';
      case '-=':
        writable();
        subtractVariable(store, name, value());
        return '';
      // The fallbacks below are evaluated only when needed: a value with side effects runs at most once.
      case '||':
        return isTruthyValue(store.get(name)) ? current() : value();
      case '??':
        return store.has(name) ? current() : value();
      case '||=': {
        if (isTruthyValue(store.get(name))) return current();
        writable();
        const next = value();
        store.set(name, next);
        return next;
      }
      case '??=': {
        if (store.has(name)) return current();
        writable();
        const next = value();
        store.set(name, next);
        return next;
      }
      case '==':
        return String(current() === value());
      case '!=':
        return String(current() !== value());
      default: {
        const left = Number(current());
        const rightText = value();
        const right = Number(rightText);
        if (current().trim() === '' || rightText === '' || Number.isNaN(left) || Number.isNaN(right)) return 'false';
        if (operator === '>') return String(left > right);
        if (operator === '>=') return String(left >= right);
        if (operator === '<') return String(left < right);
        return String(left <= right);
      }
    }
  }
}
