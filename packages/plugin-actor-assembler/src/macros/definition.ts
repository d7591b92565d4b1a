import type { MacroEnvironment } from './environment.js';

/** What a macro handler receives. */
export interface MacroCall {
  /** The macro's name as written. */
  readonly name: string;
  /** Resolved, trimmed arguments (raw source text for macros with `delayArgs`). */
  readonly args: readonly string[];
  /** Source offset of each argument in the top-level text (for `delayArgs` macros). */
  readonly argOffsets: readonly number[];
  /** Flag characters (`#` keeps scoped whitespace). */
  readonly flags: string;
  /** Whether the last argument came from `{{name}}…{{/name}}` content. */
  readonly scoped: boolean;
  /** Offset of the macro in the top-level text (seeds `{{pick}}`). */
  readonly offset: number;
  readonly env: MacroEnvironment;
  /** Hash of the top-level text (seeds `{{pick}}`); computed on first use. */
  contentHash(): number;
  /** The turn's random stream. */
  random(): number;
  /** Expands `text` as if it stood at `offset` of the top-level text (depth-limited). */
  resolve(text: string, offset: number): string;
  /** Whether `name` is a macro that takes no required argument (so `{{if name}}` resolves it). */
  isZeroArgMacro(name: string): boolean;
  /** Card fields being expanded (guards a field that mentions itself). */
  readonly activeFields: Set<string>;
  /** Global variables of this expansion. */
  readonly globals: Map<string, string>;
}

/** A macro: its arity and handler. A handler may throw; the call then stays as text (a warning). */
export interface MacroDefinition {
  readonly minArgs: number;
  /** `Infinity` for list macros (`random`, `pick`). */
  readonly maxArgs: number;
  /** Pass arguments unresolved; the handler resolves what it needs (`{{if}}` branches). */
  readonly delayArgs?: boolean;
  readonly handler: (call: MacroCall) => string;
}

/** Macros by lower-case name. */
export type MacroTable = Readonly<Record<string, MacroDefinition>>;

/**
 * Shorthand for a definition.
 * @param minArgs - fewest arguments
 * @param maxArgs - most arguments (`Infinity` for lists)
 * @param handler - the implementation
 * @param delayArgs - resolve arguments lazily
 * @returns the definition
 */
export function macro(minArgs: number, maxArgs: number, handler: (call: MacroCall) => string, delayArgs = false): MacroDefinition {
  return delayArgs ? { minArgs, maxArgs, handler, delayArgs } : { minArgs, maxArgs, handler };
}
